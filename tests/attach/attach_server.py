# attach_server.c's protocol in Python, for `rtrace record -p` on a python3 process:
# l keeps a bytearray of 5,000,000 bytes (one malloc of the interpreter), x exits with status 7.
import sys

kept = []
sys.stdout.write("ok\n")
sys.stdout.flush()
for line in sys.stdin:
    command = line.strip()
    if command == "l":
        kept.append(bytearray(5000000))
    elif command == "x":
        sys.stdout.write("ok\n")
        sys.stdout.flush()
        sys.exit(7)
    elif command not in ("p", "r"):
        continue
    sys.stdout.write("ok\n")
    sys.stdout.flush()
sys.exit(5)
