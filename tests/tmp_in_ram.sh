#!/bin/sh
# Runs a command (the suite: `make test`, `make test-lowest`, `make test-fast`) with its temporary files in
# a folder of its own on the RAM file system (/dev/shm), when there is one with room for a run: TMPDIR
# there, for pytest's tmp_path and every process the tests start.
#
# Why: the suite creates and deletes hundreds of thousands of files (repositories, caches, sites). On an
# ext4 file system without a journal, which this project's machines have, each new file skips every
# inode deleted in the last minutes (the kernel's recently_deleted(), reading inode tables): 7% of the
# machine's samples during `make test-fast`, a third of the CPU of a run of the site-build, init and cache
# tests (perf); none in RAM (docs/reference/performance.md, "The tests' temporary files in RAM").
#
# The folder is removed after a run that passed or was interrupted; a failed run's is kept (pytest's
# folders of the failing tests are in it) and its place said. Without /dev/shm, or with less than
# 4 GiB free there (a container's 64 MiB, say: a run writes about 1 GiB), or with TMPDIR already set
# (the place someone chose), or where it cannot run a program (mounted noexec, as hardened systems
# mount /dev/shm: the tests run scripts they write, git hooks and stand-in commands), the command runs as
# it is. INCIDENT_KB_TESTS_RAM names another folder than /dev/shm (tests/architecture/test_tmp_in_ram.py).
set -u
ram=${INCIDENT_KB_TESTS_RAM:-/dev/shm}
avail=$(df -Pk "$ram" 2>/dev/null | awk 'NR == 2 { print $4 }')
if [ -n "${TMPDIR:-}" ] || [ "${avail:-0}" -lt 4194304 ] ||
    ! folder=$(mktemp -d "$ram/incident-kb-tests.XXXXXX" 2>/dev/null); then
    exec "$@"
fi
probe=$folder/runs-programs
if ! { printf '#!/bin/sh\n' > "$probe" && chmod +x "$probe" && "$probe"; } 2>/dev/null; then
    rm -rf "$folder"
    exec "$@"
fi
rm -f "$probe"
interrupted=0
trap 'interrupted=1' INT TERM  # a handler, not an ignore: the command still gets the signal
TMPDIR=$folder "$@"
status=$?
if [ "$status" -eq 0 ] || [ "$interrupted" -eq 1 ]; then
    rm -rf "$folder"
else
    echo "The failed run's temporary files are kept in $folder (in RAM: remove it when done)." >&2
fi
exit "$status"
