"""Runs a command under a real pseudo-terminal and types Ctrl-C into it.

usage: python3 ptyDriver.py PATTERN TIMEOUT_S CMD [ARGS...]

Echoes everything the command writes to the terminal. Once the output matches
the regular expression PATTERN, writes the byte \\x03 to the terminal, as a
person pressing Ctrl-C would: the terminal's line discipline, not the test,
turns it into SIGINT for the foreground process group. Ends with one line
`[pty] ctrl-c=<yes|no> exit=<code or -signal>`. Kills the command after TIMEOUT_S.
"""
import os
import pty
import re
import select
import sys
import time

pattern = re.compile(sys.argv[1], re.M)
deadline = time.time() + float(sys.argv[2])
argv = sys.argv[3:]

pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)

seen = ""
sent = False
while True:
    if time.time() > deadline:
        os.kill(pid, 9)
        break
    ready, _, _ = select.select([fd], [], [], 0.1)
    if fd in ready:
        try:
            data = os.read(fd, 4096)
        except OSError:  # EIO: the command closed the terminal (it exited)
            break
        if not data:
            break
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        seen += data.decode(errors="replace")
    if not sent and pattern.search(seen):
        os.write(fd, b"\x03")
        sent = True

_, status = os.waitpid(pid, 0)
print(f"\n[pty] ctrl-c={'yes' if sent else 'no'} exit={os.waitstatus_to_exitcode(status)}", flush=True)
