// The allocator's settings for a long-running server, applied at the start of main().
#pragma once

namespace parlor::server {

// With mimalloc (parlor_allocator): memory a pass of the event loop freed stays with the
// process for a second before it goes back to the kernel, instead of mimalloc's 25 ms. A
// durable server holds each pass's frames until its commit, so its memory rises and falls
// every few milliseconds; returned after 25 ms, the same pages were taken back at once with a
// page fault each (about 20 a thousand moves, and the madvise calls that returned them).
// MIMALLOC_DECOMMIT_DELAY in the environment still decides (docs/BENCHMARKS.md, "The
// allocator's return of memory"). Without mimalloc, nothing.
void tune_allocator();

}  // namespace parlor::server
