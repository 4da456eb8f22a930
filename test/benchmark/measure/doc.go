// Package measure is what the benchmarks measure processes and API
// servers with: a process's CPU time and peak memory from /proc, an API
// server's writes from its own metrics, and the machine's load to read the
// figures by; and a pool of workers to make a workload with. It reads
// Linux's /proc and nothing else of the host.
package measure
