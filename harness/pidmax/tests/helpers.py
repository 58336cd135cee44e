"""What the package's tests share: a test with a folder of its own, the
files it writes and reads there, and patches that last as long as the
test."""
import os
import tempfile
import unittest


class FolderCase(unittest.TestCase):
    """A test with a fresh folder of its own, self.dir, gone when it
    ends."""

    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.dir = d.name

    def path(self, *names):
        return os.path.join(self.dir, *names)

    def folder(self, *names):
        """The folder NAMES inside self.dir, made; its path."""
        os.makedirs(self.path(*names))
        return self.path(*names)

    def write(self, name, text):
        """The file NAME (its folders made) holding TEXT; its path."""
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="latin-1") as f:
            f.write(text)
        return path

    def read(self, *names):
        with open(self.path(*names), encoding="latin-1") as f:
            return f.read()

    def patched(self, *patches):
        """Start each of PATCHES (mock.patch's) until the test ends."""
        for patch in patches:
            patch.start()
            self.addCleanup(patch.stop)
