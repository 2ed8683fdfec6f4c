package journal

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Reader reads a live journal in seq order. It never returns a record that
// is not yet on stable storage. A Reader is not safe for concurrent use;
// close it when done.
type Reader struct {
	j    *Journal
	want uint64 // next seq to return
	f    *os.File
	base uint64 // base of the open segment
	off  int64  // offset of the next frame in f
	seg  uint64 // seq of the next frame at off
	buf  []byte
}

// Reader returns a reader positioned at the first record with Seq >= from.
// If records before from were pruned, it starts at the oldest held record.
func (j *Journal) Reader(from uint64) *Reader {
	if from == 0 {
		from = 1
	}
	return &Reader{j: j, want: from}
}

// Next returns the next record, or io.EOF when the reader has caught up
// with the journal (wait on Journal.Changed and call Next again).
func (r *Reader) Next() (Record, error) {
	for {
		r.j.mu.Lock()
		if r.j.closed {
			r.j.mu.Unlock()
			return Record{}, ErrClosed
		}
		if r.want > r.j.durable {
			r.j.mu.Unlock()
			return Record{}, io.EOF
		}
		segs := r.j.segs
		if r.want < segs[0].base {
			r.want = segs[0].base
		}
		cur := -1
		if r.f != nil {
			for i, s := range segs {
				if s.base == r.base {
					cur = i
					break
				}
			}
		}
		if cur < 0 {
			// Not open, or pruned under us: open the segment holding want.
			idx := len(segs) - 1
			for idx > 0 && segs[idx].base > r.want {
				idx--
			}
			s := segs[idx]
			r.j.mu.Unlock()
			if err := r.open(s); err != nil {
				return Record{}, err
			}
			continue
		}
		limit := segs[cur].durable
		var next segment
		hasNext := cur+1 < len(segs)
		if hasNext {
			next = segs[cur+1]
		}
		r.j.mu.Unlock()

		rec, ok, err := r.readAt(limit)
		if err != nil {
			return Record{}, err
		}
		if !ok {
			if !hasNext {
				return Record{}, io.EOF
			}
			if r.f != nil && r.seg < next.base {
				// The segment ends short of the next one's first
				// seq: the records between are gone. Passing on to
				// the next segment would publish past them without a
				// word (journal check lists them, repair fills them).
				return Record{}, fmt.Errorf("journal: reader: %s ends before seq %d (the next segment starts at seq %d): %w",
					filepath.Base(r.f.Name()), r.seg, next.base, ErrCorrupt)
			}
			if err := r.open(next); err != nil {
				return Record{}, err
			}
			continue
		}
		if rec.Seq < r.want {
			continue
		}
		r.want = rec.Seq + 1
		return rec, nil
	}
}

func (r *Reader) open(s segment) error {
	r.closeFile()
	f, err := os.Open(s.path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			// Pruned under us: Next resolves again from the oldest segment.
			return nil
		}
		return fmt.Errorf("journal: reader: %w", err)
	}
	r.f, r.base, r.off, r.seg = f, s.base, 0, s.base
	return nil
}

// readAt reads the frame at r.off if it lies within limit bytes.
func (r *Reader) readAt(limit int64) (Record, bool, error) {
	if r.f == nil {
		return Record{}, false, nil
	}
	if r.off+headerLen > limit {
		return Record{}, false, nil
	}
	var hdr [headerLen]byte
	if _, err := r.f.ReadAt(hdr[:], r.off); err != nil {
		return Record{}, false, fmt.Errorf("journal: reader: %w", err)
	}
	l := int64(hdr[0]) | int64(hdr[1])<<8 | int64(hdr[2])<<16 | int64(hdr[3])<<24
	if l == 0 || l > MaxRecordBytes || r.off+headerLen+l > limit {
		return Record{}, false, fmt.Errorf("journal: reader: seq %d at %s:%d: %w", r.seg, filepath.Base(r.f.Name()), r.off, ErrCorrupt)
	}
	n := headerLen + int(l)
	if cap(r.buf) < n {
		r.buf = make([]byte, n)
	}
	b := r.buf[:n]
	if _, err := r.f.ReadAt(b, r.off); err != nil {
		return Record{}, false, fmt.Errorf("journal: reader: %w", err)
	}
	p, _, ok := readFrame(b)
	if !ok {
		return Record{}, false, fmt.Errorf("journal: reader: seq %d: %w", r.seg, ErrCorrupt)
	}
	rec, ok := decodeRecord(p, r.seg)
	if !ok {
		return Record{}, false, fmt.Errorf("journal: reader: seq %d: %w", r.seg, ErrCorrupt)
	}
	r.off += int64(n)
	r.seg++
	return rec, true, nil
}

func (r *Reader) closeFile() {
	if r.f != nil {
		r.f.Close()
		r.f = nil
	}
}

// Close releases the reader's file.
func (r *Reader) Close() error {
	r.closeFile()
	return nil
}

// ReadDir calls fn for every record in the journal in dir, in seq order,
// without locking it: it is safe while a daemon appends. A torn or
// unfinished tail of the newest segment ends the read silently; a bad record
// in an older segment, or one that ends short of the next segment's first
// seq, is ErrCorrupt. fn may return io.EOF to stop early.
func ReadDir(dir string, fn func(Record) error) error {
	segs, err := listSegments(dir)
	if err != nil {
		return err
	}
	for i, s := range segs {
		b, err := os.ReadFile(s.path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				continue // pruned meanwhile
			}
			return fmt.Errorf("journal: %w", err)
		}
		var ferr error
		good, next := scanBytes(b, s.base, func(r Record) {
			if ferr == nil {
				ferr = fn(r)
			}
		})
		if ferr != nil {
			if errors.Is(ferr, io.EOF) {
				return nil
			}
			return ferr
		}
		if good < int64(len(b)) && i < len(segs)-1 {
			return fmt.Errorf("journal: %s at offset %d: %w", filepath.Base(s.path), good, ErrCorrupt)
		}
		if i < len(segs)-1 && next < segs[i+1].base {
			return fmt.Errorf("journal: %s ends before seq %d (the next segment starts at seq %d): %w",
				filepath.Base(s.path), next, segs[i+1].base, ErrCorrupt)
		}
	}
	return nil
}
