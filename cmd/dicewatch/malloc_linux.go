package main

/*
#include <malloc.h>

// dicewatchTuneMalloc keeps OpenCV's frame buffers from fragmenting glibc's
// heap over months: at most two malloc arenas (one per core on the boards
// we target, instead of eight per core), and every allocation of 512 KiB
// or more (any frame-sized Mat) served by mmap and handed back to the
// kernel on free. A fixed threshold also stops glibc from raising it after
// the first large free, which would move frames back onto the heap.
static void dicewatchTuneMalloc(void) {
	mallopt(M_ARENA_MAX, 2);
	mallopt(M_MMAP_THRESHOLD, 512 * 1024);
}

// dicewatchOneShotMalloc is for a command that reads a batch of files and
// exits (dicewatch read), where months of fragmentation do not arise: frame
// buffers come from the heap again, and a freed one stays for the next
// image. Served by mmap, each image's decoded frame (a new Mat per image)
// cost a fault on every one of its pages and an munmap, 0.4 to 0.8 ms of a
// 640x640 photo's read. glibc caps the mmap threshold at 32 MiB on 64-bit.
static void dicewatchOneShotMalloc(void) {
	mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
	mallopt(M_TRIM_THRESHOLD, 256 * 1024 * 1024);
}
*/
import "C"

func init() { C.dicewatchTuneMalloc() }

// oneShotMalloc turns the long-running tuning off for a batch command.
func oneShotMalloc() { C.dicewatchOneShotMalloc() }
