# attack: write 2 GB to /tmp, /dev/shm and its folder, to fill the machine and leave it so
# defence: /tmp, /dev/shm and its folder are private tmpfs of 64 MB each, gone when it ends
import os


def fill():
    for place in ("/tmp", "/dev/shm", "."):
        for number in range(256):
            try:
                with open(os.path.join(place, f"packlab-fill-{number}"), "wb") as handle:
                    handle.write(b"x" * (8 << 20))
            except OSError:
                break


fill()


def pack(parts, budget):
    return []
