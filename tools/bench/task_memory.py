"""A Dask worker plugin that records each task's time and memory, by stage.

While a task runs, a thread samples the worker process's resident memory every 10 ms;
when it ends the plugin keeps (stage, seconds, resident memory when it started, peak
while it ran). With one thread per worker, one task runs at a time in a process, so the
peak over the start is what that task took (data arriving for the next task aside).
The stage is the task key's name (geoalign's sharded dedup names its tasks by stage).

    client.register_worker_plugin(TaskMemory())
    ... run a job ...
    records = collect(client)     # list of dicts
"""
from __future__ import annotations

import ast
import os
import threading
import time

from distributed import WorkerPlugin

PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def stage_of(key) -> str:
    if isinstance(key, str) and key.startswith("("):
        key = ast.literal_eval(key)
    name = key[0] if isinstance(key, tuple) else str(key)
    return name.rsplit("-", 1)[0] if "-" in name else name


class TaskMemory(WorkerPlugin):
    name = "task-memory"

    def setup(self, worker):
        self.records = []
        self.running = {}
        self.peak = 0
        self.lock = threading.Lock()
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self):
        while True:
            rss = resident_bytes()
            with self.lock:
                self.peak = max(self.peak, rss)
            time.sleep(0.01)

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing":
            rss = resident_bytes()
            with self.lock:
                self.peak = rss
            self.running[key] = (time.perf_counter(), rss)
        elif start == "executing" and key in self.running:
            began, rss = self.running.pop(key)
            with self.lock:
                peak = max(self.peak, resident_bytes())
            self.records.append({"stage": stage_of(key), "seconds": time.perf_counter() - began,
                                 "start_rss": rss, "peak_rss": peak})


def collect(client) -> list[dict]:
    found = client.run(lambda dask_worker: dask_worker.plugins["task-memory"].records)
    return [dict(r, worker=w) for w, records in found.items() for r in records]
