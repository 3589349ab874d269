// The allocator's settings for a long-running server, applied at the start of main().
#pragma once

namespace parlor::server {

// With mimalloc (parlor_allocator): a page whose blocks were all freed stays with the process
// for a second before mimalloc returns it to the kernel, instead of its 25 ms. A durable
// server holds each pass's frames until the pass's commit, so its memory rises and falls every
// few milliseconds; returned after 25 ms, the same pages were faulted back in (17 to 27 minor
// faults a thousand moves, and the madvise calls that returned them). MIMALLOC_DECOMMIT_DELAY
// in the environment still decides (docs/BENCHMARKS.md, "A durable move's last costs").
// Without mimalloc, nothing.
void tune_allocator();

}  // namespace parlor::server
