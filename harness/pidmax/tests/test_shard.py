"""The shard split: every job in one shard, heavy ones dealt out first."""
import unittest

from pidmax import shard


def job(name, online):
    return f"name={name}\tonline={online}\tpossible={online}"


class ShardTest(unittest.TestCase):
    LINES = [job("a", 1), job("b", 255), job("c", 1), job("d", 128),
             job("e", 1)]

    def test_every_job_once_in_order(self):
        for n in (1, 2, 3, 7):
            parts = [shard.split(self.LINES, i, n) for i in range(1, n + 1)]
            self.assertEqual(sorted(sum(parts, [])), sorted(self.LINES))
            for part in parts:
                self.assertEqual(part, [x for x in self.LINES if x in part])

    def test_heaviest_first_to_the_lightest_shard(self):
        # b (255 online) to shard 1, d (128) to shard 2, then the light
        # ones to shard 2, the lighter, one by one.
        self.assertEqual(shard.split(self.LINES, 1, 2), [job("b", 255)])
        self.assertEqual(shard.split(self.LINES, 2, 2),
                         [job("a", 1), job("c", 1), job("d", 128),
                          job("e", 1)])

    def test_spec(self):
        self.assertEqual(shard.spec("2/3"), (2, 3))
        for bad in ("0/3", "4/3", "1", "a/b", "1/"):
            with self.assertRaisesRegex(ValueError, "want I/N"):
                shard.spec(bad)


if __name__ == "__main__":
    unittest.main()
