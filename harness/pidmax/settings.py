"""The settings the environment may change. The door (__main__.settings_of)
reads them once, from the variables named below, and hands a Settings
down to the verbs and the sweep; no module below it reads the
environment for a setting. Settings() is what an empty environment
gives."""
import os
from dataclasses import dataclass

from .tables import HARNESS, HOME, Tables


@dataclass(frozen=True)
class Settings:
    # The emulator of a guest whose job names none ($QEMU: the
    # self-tests' fake-qemu.sh); empty for the architecture's own.
    qemu: str = ""
    # How many lines of a failed boot's console the runner prints
    # ($PIDMAX_FAIL_TAIL); 0 or fewer for none.
    fail_tail: int = 15
    # Where the tables are ($PIDMAX_TREES and its kind: tables.Tables).
    tables: Tables = HOME
    # What a sweep that boots runs first to install its packages
    # ($PIDMAX_DEPS: the self-tests' true).
    deps: str = os.path.join(HARNESS, "deps.sh")
