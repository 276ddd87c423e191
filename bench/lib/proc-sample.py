#!/usr/bin/env python3
"""Run a command and measure it from /proc, apart from the servers it starts.

Usage: proc-sample.py OUT.json INTERVAL_S -- COMMAND...

Why not /usr/bin/time: drivebench starts mariadbd as its child and reaps it, and wait4()
reports a process's usage together with that of the children it waited for — user/sys time
summed, "Maximum resident set size" the larger of the two — so `time` would mostly measure
the server. Instead this samples, every INTERVAL_S seconds while the command runs:
  - the command's own utime/stime (/proc/PID/stat fields 14, 15: its own threads only),
    VmRSS, VmHWM (peak RSS) and Threads (/proc/PID/status), and the time its threads waited
    for a CPU while runnable (/proc/PID/task/*/schedstat);
  - each direct child's (the server's) utime/stime and VmRSS;
  - /proc/loadavg.
The command's stderr is passed through and each line kept with its wall-clock time, so the
caller can find phase boundaries. OUT.json: {"samples": [...], "lines": [[t, text]...],
"exit": code}.
"""
import json
import os
import subprocess
import sys
import threading
import time

HZ = os.sysconf("SC_CLK_TCK")


def cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rindex(")") + 2 :].split()  # fields from 3 (state) on
    return int(rest[11]) / HZ, int(rest[12]) / HZ, s[s.index("(") + 1 : s.rindex(")")]


def status(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM", "Threads"):
                out[k] = int(v.split()[0])
    return out


def run_delay(pid):
    """Seconds the process's threads spent runnable but waiting for a CPU (schedstat field 2)."""
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[1])
        except (OSError, IndexError, ValueError):
            pass
    return total / 1e9


def children(pid):
    kids = set()
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids.update(int(c) for c in f.read().split())
    except OSError:
        pass
    return sorted(kids)


def main():
    out_path, interval = sys.argv[1], float(sys.argv[2])
    cmd = sys.argv[sys.argv.index("--") + 1 :]
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, bufsize=1)
    lines = []

    def reader():
        for line in p.stderr:
            lines.append((time.time(), line.rstrip("\n")))
            sys.stderr.write(line)
            sys.stderr.flush()

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    samples = []
    while p.poll() is None:
        now = time.time()
        try:
            u, s, _ = cpu(p.pid)
            st = status(p.pid)
            with open("/proc/loadavg") as f:
                load = [float(x) for x in f.read().split()[:3]]
            kids = []
            for c in children(p.pid):
                try:
                    cu, cs, name = cpu(c)
                    kids.append({"pid": c, "name": name, "utime": cu, "stime": cs,
                                 "rss_kb": status(c).get("VmRSS", 0)})
                except OSError:
                    pass
            samples.append({"t": now, "utime": u, "stime": s, "rss_kb": st.get("VmRSS", 0),
                            "hwm_kb": st.get("VmHWM", 0), "threads": st.get("Threads", 0),
                            "run_delay": run_delay(p.pid),
                            "load": load, "children": kids})
        except (OSError, ValueError, IndexError):
            pass  # exiting between the checks
        time.sleep(interval)
    t.join(timeout=5)
    with open(out_path, "w") as f:
        json.dump({"samples": samples, "lines": lines, "exit": p.returncode}, f)
    sys.exit(p.returncode)


if __name__ == "__main__":
    main()
