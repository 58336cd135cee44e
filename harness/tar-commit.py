#!/usr/bin/env python3
"""tar-commit.py - a tarball's tree as one commit, for git fast-import.

Usage: xz -dc TARBALL | harness/tar-commit.py REF MESSAGE | git fast-import

Reads an uncompressed tar stream on stdin and writes a git fast-import
stream on stdout: one commit on REF whose tree is every regular file and
symlink of the tarball (executable bits kept, the first path component
stripped: linux-source-7.3/), with MESSAGE, authored and committed by
$GIT_AUTHOR_NAME <$GIT_AUTHOR_EMAIL> and $GIT_COMMITTER_NAME
<$GIT_COMMITTER_EMAIL> now. Nothing touches the disk but git's pack:
harness/send-series.sh and ci/check-send.sh commit a pristine kernel
tree (96000 files) this way instead of unpacking it and running git add.
"""
import os
import sys
import tarfile
import time


def quote(path):
    """fast-import's C-style quoting, where a path needs it."""
    if not any(c in path for c in '"\\\n') and not path.startswith('"'):
        return path
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def ident(who):
    name = os.environ.get(f"GIT_{who}_NAME", "")
    email = os.environ.get(f"GIT_{who}_EMAIL", "")
    if not name or not email:
        sys.exit(f"tar-commit.py: GIT_{who}_NAME and GIT_{who}_EMAIL must be set")
    return f"{name} <{email}> {int(time.time())} +0000"


def data(out, payload):
    out.write(b"data %d\n" % len(payload))
    out.write(payload)
    out.write(b"\n")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    ref, message = sys.argv[1], sys.argv[2]
    out = sys.stdout.buffer
    out.write(f"commit {ref}\n".encode())
    out.write(f"author {ident('AUTHOR')}\n".encode())
    out.write(f"committer {ident('COMMITTER')}\n".encode())
    data(out, message.encode() + b"\n")
    files = 0
    with tarfile.open(fileobj=sys.stdin.buffer, mode="r|") as tar:
        for member in tar:
            path = member.name.split("/", 1)[1] if "/" in member.name else ""
            if not path or member.isdir():
                continue
            if member.issym():
                mode, payload = "120000", member.linkname.encode()
            elif member.isfile():
                mode = "100755" if member.mode & 0o111 else "100644"
                payload = tar.extractfile(member).read()
            else:
                sys.exit(f"tar-commit.py: {member.name}: not a file or a symlink")
            out.write(f"M {mode} inline {quote(path)}\n".encode())
            data(out, payload)
            files += 1
    if files == 0:
        sys.exit("tar-commit.py: no files in the tarball")
    out.write(b"\n")


if __name__ == "__main__":
    main()
