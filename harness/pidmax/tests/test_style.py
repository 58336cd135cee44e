"""The package's own rule: no function over 50 lines."""
import ast
import os
import tempfile
import unittest

PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIMIT = 50


def long_functions(path):
    """(name, lines) of each function of the file PATH over LIMIT lines."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    return [(node.name, node.end_lineno - node.lineno + 1)
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > LIMIT]


class StyleTest(unittest.TestCase):
    def test_no_function_over_50_lines(self):
        found = []
        for root, _, files in os.walk(PACKAGE):
            for name in sorted(f for f in files if f.endswith(".py")):
                path = os.path.join(root, name)
                found += [f"{os.path.relpath(path, PACKAGE)}: {fn} {n} lines"
                          for fn, n in long_functions(path)]
        self.assertEqual(found, [])

    def test_the_rule_can_fail(self):
        with open(os.path.join(PACKAGE, "__init__.py")) as f:
            self.assertEqual(long_functions(f.name), [])
        body = "".join(f"    x{i} = {i}\n" for i in range(LIMIT))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "long.py")
            with open(path, "w") as f:
                f.write("def f():\n" + body)
            self.assertEqual(long_functions(path), [("f", LIMIT + 1)])


if __name__ == "__main__":
    unittest.main()
