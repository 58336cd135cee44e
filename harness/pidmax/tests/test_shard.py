"""The shard split: every job in one shard, heavy ones dealt out first."""
import unittest

from pidmax import shard
from pidmax.joblist import fields


def job(name, online):
    return f"name={name}\tonline={online}\tpossible={online}"


def planned(name, possible, online):
    """A job line of the planner's, with the fields that weigh a boot."""
    return (f"name=s-{name}\ttier={name.split('-')[0]}\tpossible={possible}"
            f"\tonline={online}\tmachine=pc")


# A sweep's jobs: hotplug boots of 1 to 10, 33, 64, 128 and 255 possible
# CPUs (one online), and online boots of 1, 64, 128, 192 and 255 CPUs.
SWEEP = ([planned(f"hotplug-{i}", i, 1)
          for i in (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 33, 64, 128, 255)]
         + [planned(f"online-{i}", i, i) for i in (1, 64, 128, 192, 255)])


def names(lines):
    return [fields(x)["name"] for x in lines]


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

    def test_a_sweep_split_one_to_eight_ways(self):
        for n in range(1, 9):
            parts = [shard.split(SWEEP, i, n) for i in range(1, n + 1)]
            self.assertEqual(sorted(sum(parts, [])), sorted(SWEEP), n)
        # The two heaviest (192 and 255 online) go to shards 1 and 2, the
        # 128 to shard 3, and shard 4 gets the most light boots.
        heavy = [sum(fields(x)["online"] in ("128", "192", "255")
                     for x in shard.split(SWEEP, i, 4)) for i in (1, 2, 3, 4)]
        self.assertEqual(heavy, [1, 1, 1, 0])
        # Worked out by hand from joblist.weight (100 + 4 online +
        # online^2/40 + ids/8 + ids^2/61000): online 255, 192, 128, 64
        # weigh 2777, 1813, 1037, 466, hotplug 255, 128, 64, 33 weigh 136,
        # 120, 112, 108, hotplug 8-10 105, hotplug 1-7 and online 1 104.
        # Heaviest first, each to the least-loaded shard: 255 to shard 1,
        # 192 to 2, then shard 3 takes 128 and 64 online and hotplug 255,
        # 128, 64 (1871); from there shards 2 and 3 alternate, 2 taking
        # hotplug 33, 9, 1, 3, 5, 7.
        self.assertEqual(names(shard.split(SWEEP, 2, 3)), [
            "s-hotplug-1", "s-hotplug-3", "s-hotplug-5", "s-hotplug-7",
            "s-hotplug-9", "s-hotplug-33", "s-online-192"])
        self.assertEqual(names(shard.split(SWEEP, 1, 3)), ["s-online-255"])

    def test_a_bad_line_named(self):
        with self.assertRaisesRegex(ValueError, "^line 2: job b: online is "
                                    "'x', not a number$"):
            shard.split(["name=a\tonline=1", "name=b\tonline=x"], 1, 2)

    def test_spec(self):
        self.assertEqual(shard.spec("2/3"), (2, 3))
        for bad in ("0/3", "4/3", "1", "a/b", "1/"):
            with self.assertRaisesRegex(ValueError, "want I/N"):
                shard.spec(bad)


if __name__ == "__main__":
    unittest.main()
