// Package measure is what the benchmarks measure processes and API
// servers with: a process's CPU time and peak memory from /proc, an API
// server's writes from its own metrics and its CPU profile from its
// /debug/pprof, and the machine's load to read the figures by; and a pool
// of workers to make a workload with. Of the host it reads Linux's /proc
// and nothing else.
package measure
