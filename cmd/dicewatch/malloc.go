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
*/
import "C"

func init() { C.dicewatchTuneMalloc() }
