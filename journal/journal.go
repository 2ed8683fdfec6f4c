package journal

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Record is one journal entry.
type Record struct {
	// Seq is strictly increasing and never reused, starting at 1.
	Seq uint64 `json:"seq"`
	// ID is stable for the life of the record (journal epoch + seq); MQTT
	// consumers de-duplicate re-deliveries by it.
	ID string `json:"id"`
	// Kind names the record type and the MQTT topic: roll, noroll, event,
	// state, snapshot.
	Kind string `json:"kind"`
	// TS is when the recorded thing happened, in UTC.
	TS time.Time `json:"ts"`
	// Body is the kind-specific JSON object.
	Body json.RawMessage `json:"body"`
}

// Options tune a journal. The zero value is usable.
type Options struct {
	// SegmentBytes is the size at which a new segment file is started
	// (default 16 MiB).
	SegmentBytes int64
	// MaxBytes bounds the total size of all segments (0: no limit).
	MaxBytes int64
	// MaxAge drops segments whose newest record is older than this
	// (0: no limit).
	MaxAge time.Duration
	// Now is the clock for MaxAge (default time.Now).
	Now func() time.Time
	// Logger receives recovery and retention notices (default: discard).
	Logger *slog.Logger

	// syncFile replaces fdatasync (tests inject slow or failing syncs).
	syncFile func(*os.File) error
}

// Errors callers may branch on.
var (
	// ErrClosed is returned by operations on a closed journal.
	ErrClosed = errors.New("journal: closed")
	// ErrLocked is returned by Open when another process holds the journal.
	ErrLocked = errors.New("journal: locked by another process")
	// ErrCorrupt is returned when a record that is not the tail fails its
	// checksum.
	ErrCorrupt = errors.New("journal: corrupt record")
	// ErrNotWritten: the record could not be written (a full disk), and
	// the segment was cut back to where it was, so the journal is intact
	// and a later append may succeed. The record got no seq; nothing may
	// be told about it.
	ErrNotWritten = errors.New("journal: record not written")
)

const (
	defaultSegmentBytes = 16 << 20
	// MaxRecordBytes bounds one encoded record (snapshots included).
	MaxRecordBytes = 8 << 20
	headerLen      = 8
	segPrefix      = "seg-"
	segSuffix      = ".log"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var kindRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// reserved are the MQTT envelope keys a body may not use.
var reserved = []string{"schema", "table", "seq", "id", "ts", "kind"}

type segment struct {
	base    uint64 // first seq this segment was created for
	path    string
	size    int64 // bytes written
	durable int64 // bytes known to be on stable storage
}

// Journal is an open journal. Its methods are safe for concurrent use.
type Journal struct {
	dir   string
	opts  Options
	log   *slog.Logger
	epoch string
	lock  *os.File

	// syncFile makes a segment's written bytes durable (fdatasync; tests
	// replace it to inject failures).
	syncFile func(*os.File) error
	// syncDone is closed when the syncer goroutine has returned.
	syncDone chan struct{}

	mu        sync.Mutex
	wake      *sync.Cond // on mu: the syncer waits here for work or closing
	closing   bool       // Close has begun: the syncer flushes and returns
	closeOnce sync.Once
	closeErr  error
	closed    bool
	failed    error // sticky: a write or sync failed, the tail is unknown
	segs      []segment
	active    *os.File
	next      uint64     // seq of the next record to write
	durable   uint64     // highest seq on stable storage
	retired   []*os.File // rolled segments, closed after the next sync
	delivered uint64
	lastKind  map[string]Record
	changed   chan struct{}
}

// Open opens (creating if needed) the journal in dir, recovers a torn tail,
// and takes an exclusive lock on it for this process. A bad frame in the
// newest segment with whole records after it, or a last record written
// whole that cannot be read (see notTorn), is not a torn tail, nor is a
// journal.id damaged, or missing while records are held: Open returns
// ErrCorrupt and changes nothing (see Check and Repair).
func Open(dir string, opts Options) (*Journal, error) {
	if opts.SegmentBytes <= 0 {
		opts.SegmentBytes = defaultSegmentBytes
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.syncFile == nil {
		opts.syncFile = fdatasync
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	lf, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_CREATE|os.O_RDWR, 0o640)
	if err != nil {
		return nil, fmt.Errorf("journal: lock: %w", err)
	}
	if err := lockExclusive(lf); err != nil {
		lf.Close()
		if errors.Is(err, ErrLocked) {
			return nil, fmt.Errorf("journal: %s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("journal: lock: %w", err)
	}
	j := &Journal{dir: dir, opts: opts, log: opts.Logger, lock: lf, lastKind: map[string]Record{}, changed: make(chan struct{}),
		syncFile: opts.syncFile, syncDone: make(chan struct{})}
	j.wake = sync.NewCond(&j.mu)
	if err := j.open(); err != nil {
		if j.active != nil {
			j.active.Close()
		}
		lf.Close()
		return nil, err
	}
	go j.syncLoop()
	return j, nil
}

func (j *Journal) open() error {
	if _, err := loadEpochNoCreate(j.dir); errors.Is(err, os.ErrNotExist) {
		// journal.id gone while records are held: a new id would
		// start a second run of ids in one journal, and the publisher
		// would no longer know its cursor (the cursor names the id) nor
		// that the broker acknowledged records the journal has lost.
		// Until ops23 Open made a new one. Repair writes it again from
		// the records' ids.
		if e, ok, err := recordsEpoch(j.dir); err != nil {
			return err
		} else if ok {
			return fmt.Errorf("journal: %s is missing but the journal holds records (their ids begin with %s): %w; run dicewatch journal check, then dicewatch journal repair",
				filepath.Join(j.dir, "journal.id"), e, ErrCorrupt)
		}
	}
	epoch, err := loadEpoch(j.dir)
	if err != nil {
		return err
	}
	j.epoch = epoch
	segs, err := listSegments(j.dir)
	if err != nil {
		return err
	}
	if len(segs) == 0 {
		s, err := j.createSegment(1)
		if err != nil {
			return err
		}
		segs = []segment{s}
	}
	j.segs = segs
	last := &j.segs[len(j.segs)-1]
	f, err := os.OpenFile(last.path, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	j.active = f
	good, next, torn, err := scanSegment(f, last.base, func(r Record) { j.lastKind[r.Kind] = r })
	if err != nil {
		return err
	}
	if torn {
		// Whole records after the bad frame: a record damaged on disk,
		// not a write torn by a crash, and the ones after it may have
		// been published. Cutting them would give their seqs (and ids)
		// to new records, which a consumer then drops as re-deliveries.
		// Refuse, as a reader does on damage in an older segment, and
		// leave the segment as it is for journal check and repair.
		if seq, ok := wholeRecordsAfter(f, good, next); ok {
			return fmt.Errorf("journal: %s: the record at offset %d (seq %d) cannot be read and whole records follow it (seq %d on): %w; run dicewatch journal check, then dicewatch journal repair",
				filepath.Base(last.path), good, next, seq, ErrCorrupt)
		}
		// The newest record written whole but failing to read: its
		// checksum, or its length header, damaged after it was written
		// (see notTorn), and perhaps published. Cutting it would give
		// its seq and id to the next record (review22j; a damaged
		// length until ops23).
		if tail, err := tailBytes(f, good); err == nil && notTorn(tail, good, next) {
			return fmt.Errorf("journal: %s: the record at offset %d (seq %d) was written whole but cannot be read (damaged on disk, not torn by a crash): %w; run dicewatch journal check, then dicewatch journal repair",
				filepath.Base(last.path), good, next, ErrCorrupt)
		}
		j.log.Warn("journal: torn tail cut", "segment", filepath.Base(last.path), "offset", good, "next_seq", next)
		j.keepTornTail(f, good, next)
		if err := f.Truncate(good); err != nil {
			return fmt.Errorf("journal: truncate torn tail: %w", err)
		}
	}
	// Sync the recovered tail whether or not it was cut: a process killed
	// between writing a frame and its fdatasync leaves the frame in the
	// page cache, where the scan above sees it as valid. Readers treat
	// every recovered record as durable, so it must be before they run.
	if err := j.syncFile(f); err != nil {
		return fmt.Errorf("journal: sync recovered tail: %w", err)
	}
	if _, err := f.Seek(good, 0); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	last.size = good
	for i := range j.segs {
		j.segs[i].durable = j.segs[i].size
	}
	j.next = next
	j.durable = next - 1
	return nil
}

func loadEpoch(dir string) (string, error) {
	p := filepath.Join(dir, "journal.id")
	b, err := os.ReadFile(p)
	if err == nil {
		s := strings.TrimSpace(string(b))
		if len(s) == 16 {
			if _, err := hex.DecodeString(s); err == nil {
				return s, nil
			}
		}
		// Damaged on disk: every start would meet it (ErrCorrupt, the
		// daemon's status 65). Repair writes it again from the records.
		return "", fmt.Errorf("journal: %s is not a 16-digit hex id: %w; run dicewatch journal check, then dicewatch journal repair", p, ErrCorrupt)
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("journal: %w", err)
	}
	var raw [8]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("journal: epoch: %w", err)
	}
	s := hex.EncodeToString(raw[:])
	if err := writeFileSync(p, []byte(s+"\n")); err != nil {
		return "", err
	}
	return s, nil
}

// writeFileSync writes a file atomically (temp + rename) and syncs it and
// its directory.
func writeFileSync(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("journal: sync dir: %w", err)
	}
	return nil
}

func segName(base uint64) string { return fmt.Sprintf("%s%020d%s", segPrefix, base, segSuffix) }

func listSegments(dir string) ([]segment, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("journal: %w", err)
	}
	var segs []segment
	for _, e := range ents {
		n := e.Name()
		if !strings.HasPrefix(n, segPrefix) || !strings.HasSuffix(n, segSuffix) {
			continue
		}
		base, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(n, segPrefix), segSuffix), 10, 64)
		if err != nil || base == 0 {
			continue
		}
		info, err := e.Info()
		if err != nil {
			return nil, fmt.Errorf("journal: %w", err)
		}
		segs = append(segs, segment{base: base, path: filepath.Join(dir, n), size: info.Size(), durable: info.Size()})
	}
	sort.Slice(segs, func(a, b int) bool { return segs[a].base < segs[b].base })
	return segs, nil
}

func (j *Journal) createSegment(base uint64) (segment, error) {
	p := filepath.Join(j.dir, segName(base))
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o640)
	if err != nil {
		return segment{}, fmt.Errorf("journal: new segment: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(p) // so that the next roll can create it again
		return segment{}, fmt.Errorf("journal: new segment: %w", err)
	}
	if err := syncDir(j.dir); err != nil {
		os.Remove(p)
		return segment{}, err
	}
	return segment{base: base, path: p}, nil
}

// readFrame reads one frame from b at off. ok is false if the frame is
// short, oversized or fails its checksum.
func readFrame(b []byte) (payload []byte, n int, ok bool) {
	if len(b) < headerLen {
		return nil, 0, false
	}
	l := binary.LittleEndian.Uint32(b[0:4])
	sum := binary.LittleEndian.Uint32(b[4:8])
	if l == 0 || l > MaxRecordBytes || int64(len(b)-headerLen) < int64(l) {
		return nil, 0, false
	}
	p := b[headerLen : headerLen+int(l)]
	if crc32.Checksum(p, castagnoli) != sum {
		return nil, 0, false
	}
	return p, headerLen + int(l), true
}

func decodeRecord(p []byte, want uint64) (Record, bool) {
	var r Record
	if err := json.Unmarshal(p, &r); err != nil {
		return Record{}, false
	}
	if r.Seq != want || r.ID == "" || !kindRE.MatchString(r.Kind) || len(r.Body) == 0 || r.Body[0] != '{' {
		return Record{}, false
	}
	return r, true
}

// scanSegment reads every valid record of a segment from the start. good is
// the offset after the last valid record, next the seq after it, and torn
// reports whether bytes follow good.
func scanSegment(f *os.File, base uint64, fn func(Record)) (good int64, next uint64, torn bool, err error) {
	info, err := f.Stat()
	if err != nil {
		return 0, 0, false, fmt.Errorf("journal: %w", err)
	}
	b := make([]byte, info.Size())
	if _, err := f.ReadAt(b, 0); err != nil && info.Size() > 0 {
		return 0, 0, false, fmt.Errorf("journal: read %s: %w", f.Name(), err)
	}
	good, next = scanBytes(b, base, fn)
	return good, next, good < int64(len(b)), nil
}

// scanBytes is scanSegment over bytes in memory.
func scanBytes(b []byte, base uint64, fn func(Record)) (good int64, next uint64) {
	next = base
	off := 0
	for off < len(b) {
		p, n, ok := readFrame(b[off:])
		if !ok {
			break
		}
		r, ok := decodeRecord(p, next)
		if !ok {
			break
		}
		if fn != nil {
			fn(r)
		}
		off += n
		next++
	}
	return int64(off), next
}

// Epoch is the random id of this journal, the prefix of every record id.
func (j *Journal) Epoch() string { return j.epoch }

// Dir is the journal's directory.
func (j *Journal) Dir() string { return j.dir }

// NextSeq is the seq the next Append will get.
func (j *Journal) NextSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.next
}

// LastSeq is the seq of the newest record on stable storage (0 if none).
func (j *Journal) LastSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.durable
}

// FirstSeq is the seq of the oldest record still held.
func (j *Journal) FirstSeq() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.segs[0].base
}

// Changed returns a channel that is closed when more records reach stable
// storage (the syncer's next batch), when the journal fails, and on Close.
func (j *Journal) Changed() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.changed
}

// Append writes a record with the next seq and returns it once it is on
// stable storage. body must marshal to a JSON object that does not use the
// envelope keys schema, table, seq, id, ts or kind.
//
// Append is AppendNoWait followed by WaitDurable: concurrent appenders
// share one fdatasync (group commit), but a single caller pays one full
// fdatasync per record. A caller that produces records in a stream can
// use AppendNoWait and wait only where it acknowledges something.
func (j *Journal) Append(kind string, ts time.Time, body any) (Record, error) {
	rec, err := j.AppendNoWait(kind, ts, body)
	if err != nil {
		return Record{}, err
	}
	if err := j.WaitDurable(rec.Seq); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// AppendNoWait writes a record with the next seq and returns it without
// waiting for it to reach stable storage; the journal's syncer makes it
// durable in its next batch, typically within one fdatasync. Until then
// the record is invisible: Readers, LastSeq and Changed only move past
// it once it is durable, so nothing that publishes from the journal can
// publish it early, and a crash before the sync loses only records that
// nobody has seen. The caller must not tell anyone else about rec (a
// lamp, a reply, a log line that claims a decision) before
// WaitDurable(rec.Seq) returns nil.
//
// If a write or sync fails the journal fails for good: this and every
// later AppendNoWait, Append and WaitDurable return that error.
func (j *Journal) AppendNoWait(kind string, ts time.Time, body any) (Record, error) {
	if !kindRE.MatchString(kind) {
		return Record{}, fmt.Errorf("journal: append: invalid kind %q", kind)
	}
	raw, err := encodeBody(body)
	if err != nil {
		return Record{}, err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	rec, rolled, err := j.writeLocked(kind, ts, raw)
	if err != nil {
		return Record{}, err
	}
	if rolled {
		// The pruned event (if any) goes out with the syncer's next batch.
		if _, err := j.pruneLocked(); err != nil {
			j.log.Warn("journal: retention", "err", err)
		}
	}
	return rec, nil
}

// WaitDurable returns nil once the record seq is on stable storage, or the
// journal's sticky error if a write or sync failed first, or ErrClosed if
// the journal was closed without it (it never was written).
func (j *Journal) WaitDurable(seq uint64) error {
	j.mu.Lock()
	for {
		if j.durable >= seq {
			j.mu.Unlock()
			return nil
		}
		if j.failed != nil {
			err := j.failed
			j.mu.Unlock()
			return err
		}
		if j.closed {
			j.mu.Unlock()
			return ErrClosed
		}
		if seq >= j.next {
			j.mu.Unlock()
			return fmt.Errorf("journal: wait for seq %d: not written (next is %d)", seq, j.next)
		}
		ch := j.changed
		j.mu.Unlock()
		<-ch
		j.mu.Lock()
	}
}

// syncLoop is the journal's one syncer. It waits for written records that
// are not yet durable, fdatasyncs the active segment once for all of them
// (every record written while a sync runs joins the next one: group
// commit), marks them durable and wakes readers and waiters. When Close
// begins it makes one last sync of anything pending and returns. A failed
// sync fails the journal: nothing after the last good sync ever becomes
// visible, and the syncer stops.
func (j *Journal) syncLoop() {
	defer close(j.syncDone)
	j.mu.Lock()
	defer j.mu.Unlock()
	for {
		for j.failed == nil && !j.closing && j.next-1 <= j.durable {
			j.wake.Wait()
		}
		if j.failed != nil || j.next-1 <= j.durable {
			return // failed, or closing with nothing pending
		}
		f := j.active
		target := j.next - 1
		last := j.segs[len(j.segs)-1]
		j.mu.Unlock()
		err := j.syncFile(f)
		j.mu.Lock()
		if err != nil {
			j.failLocked(fmt.Errorf("journal: sync: %w", err))
			return
		}
		j.markDurableLocked(target, last.base, last.size)
		// Rolled segments were synced by rollLocked; f was the only one
		// still in use, and this is the only syncer.
		for _, r := range j.retired {
			r.Close()
		}
		j.retired = nil
	}
}

// failLocked makes err the journal's sticky error and wakes everything
// that waits on it.
func (j *Journal) failLocked(err error) {
	if j.failed == nil {
		j.failed = err
		j.log.Error("journal: failed; no further records are accepted", "err", err)
	}
	j.wake.Broadcast()
	close(j.changed)
	j.changed = make(chan struct{})
}

// markDurableLocked records that every record up to seq, and the first
// size bytes of the segment with this base, are on stable storage, and
// wakes readers and waiters.
func (j *Journal) markDurableLocked(seq, base uint64, size int64) {
	if seq <= j.durable {
		return
	}
	j.durable = seq
	for i := range j.segs {
		if j.segs[i].base == base && size > j.segs[i].durable {
			j.segs[i].durable = size
		}
	}
	close(j.changed)
	j.changed = make(chan struct{})
}

func encodeBody(body any) (json.RawMessage, error) {
	var raw []byte
	switch b := body.(type) {
	case json.RawMessage:
		raw = b
	case []byte:
		raw = b
	default:
		var err error
		raw, err = json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("journal: append: encode body: %w", err)
		}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("journal: append: body must be a JSON object")
	}
	for _, k := range reserved {
		if _, ok := fields[k]; ok {
			return nil, fmt.Errorf("journal: append: body uses reserved key %q", k)
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("journal: append: %w", err)
	}
	return buf.Bytes(), nil
}

// writeLocked writes a record's frame (not yet synced; see syncLoop).
func (j *Journal) writeLocked(kind string, ts time.Time, raw json.RawMessage) (Record, bool, error) {
	if j.closing {
		// The syncer may have made its last sync: a record written now
		// would never become durable in this process.
		return Record{}, false, ErrClosed
	}
	if j.failed != nil {
		return Record{}, false, j.failed
	}
	rec := Record{Seq: j.next, ID: j.epoch + "-" + strconv.FormatUint(j.next, 10), Kind: kind, TS: ts.UTC(), Body: raw}
	payload, err := json.Marshal(rec)
	if err != nil {
		return Record{}, false, fmt.Errorf("journal: append: %w", err)
	}
	if len(payload) > MaxRecordBytes {
		return Record{}, false, fmt.Errorf("journal: append: record is %d bytes, limit %d", len(payload), MaxRecordBytes)
	}
	frame := make([]byte, headerLen+len(payload))
	binary.LittleEndian.PutUint32(frame[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(frame[4:8], crc32.Checksum(payload, castagnoli))
	copy(frame[headerLen:], payload)

	rolled := false
	cur := &j.segs[len(j.segs)-1]
	if cur.size > 0 && cur.size+int64(len(frame)) > j.opts.SegmentBytes {
		if err := j.rollLocked(); err != nil {
			return Record{}, false, err
		}
		rolled = true
		cur = &j.segs[len(j.segs)-1]
	}
	if _, err := j.active.Write(frame); err != nil {
		// A write that fails (ENOSPC, EDQUOT) may have left part of the
		// frame. Cut it off: what was written before is untouched, and
		// the next record goes where this one would have. Only if that
		// fails too is the tail unknown, and the journal failed for good.
		// The file offset must go back too: the newest segment is not
		// opened for appending, and a write past the end would leave a
		// hole that ends the segment at the next Open.
		terr := j.active.Truncate(cur.size)
		if terr == nil {
			_, terr = j.active.Seek(cur.size, io.SeekStart)
		}
		if terr != nil {
			j.failLocked(fmt.Errorf("journal: write: %w (and cutting the partial record: %v)", err, terr))
			return Record{}, false, j.failed
		}
		return Record{}, false, fmt.Errorf("%w: seq %d: %w", ErrNotWritten, j.next, err)
	}
	cur.size += int64(len(frame))
	j.next++
	j.lastKind[kind] = rec
	j.wake.Signal()
	return rec, rolled, nil
}

func (j *Journal) rollLocked() error {
	if err := j.syncFile(j.active); err != nil {
		j.failLocked(fmt.Errorf("journal: sync: %w", err))
		return j.failed
	}
	last := j.segs[len(j.segs)-1]
	j.markDurableLocked(j.next-1, last.base, last.size)
	s, err := j.createSegment(j.next)
	if err != nil {
		// Nothing was written; the old segment stays active.
		return fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		os.Remove(s.path)
		return fmt.Errorf("%w: %w", ErrNotWritten, err)
	}
	// The syncer may still be syncing the old file: it closes it after.
	j.retired = append(j.retired, j.active)
	j.active = f
	j.segs = append(j.segs, s)
	return nil
}

// SetDelivered records that every record up to and including seq has been
// delivered (acknowledged by the broker). Retention never drops a record
// above this mark. The mark only moves forward.
func (j *Journal) SetDelivered(seq uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if seq > j.delivered {
		j.delivered = seq
	}
}

// Prune applies MaxBytes and MaxAge now (Append also does at each new
// segment). It journals an "event" record for what it drops.
func (j *Journal) Prune() error {
	j.mu.Lock()
	if j.closing {
		j.mu.Unlock()
		return ErrClosed
	}
	evSeq, err := j.pruneLocked()
	j.mu.Unlock()
	if err != nil || evSeq == 0 {
		return err
	}
	return j.WaitDurable(evSeq)
}

// PrunedEvent is the body of the "event" record journalled when retention
// drops records.
type PrunedEvent struct {
	Event    string `json:"event"` // "journal_pruned"
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
	Records  uint64 `json:"records"`
	Reason   string `json:"reason"` // "max_bytes" or "max_age"
}

// pruneLocked drops segments over the limits and writes (without
// syncing) the pruned event; it returns that event's seq, or 0.
func (j *Journal) pruneLocked() (uint64, error) {
	if j.opts.MaxBytes <= 0 && j.opts.MaxAge <= 0 {
		return 0, nil
	}
	var total int64
	for _, s := range j.segs {
		total += s.size
	}
	now := j.opts.Now()
	var dropped []segment
	reason := ""
	for len(j.segs) > 1 {
		s := j.segs[0]
		lastSeq := j.segs[1].base - 1
		if lastSeq > j.delivered {
			break
		}
		why := ""
		if j.opts.MaxBytes > 0 && total > j.opts.MaxBytes {
			why = "max_bytes"
		} else if j.opts.MaxAge > 0 {
			ts, ok, err := lastTS(s)
			if err != nil {
				return 0, err
			}
			if ok && now.Sub(ts) > j.opts.MaxAge {
				why = "max_age"
			}
		}
		if why == "" {
			break
		}
		if err := os.Remove(s.path); err != nil {
			return 0, fmt.Errorf("journal: prune: %w", err)
		}
		if reason == "" {
			reason = why
		}
		total -= s.size
		dropped = append(dropped, s)
		j.segs = j.segs[1:]
	}
	if len(dropped) == 0 {
		return 0, nil
	}
	if err := syncDir(j.dir); err != nil {
		return 0, err
	}
	ev := PrunedEvent{Event: "journal_pruned", FirstSeq: dropped[0].base, LastSeq: j.segs[0].base - 1, Reason: reason}
	ev.Records = ev.LastSeq - ev.FirstSeq + 1
	raw, err := json.Marshal(ev)
	if err != nil {
		return 0, fmt.Errorf("journal: prune: %w", err)
	}
	j.log.Info("journal: pruned", "first_seq", ev.FirstSeq, "last_seq", ev.LastSeq, "reason", reason)
	rec, _, err := j.writeLocked("event", now, raw)
	return rec.Seq, err
}

func lastTS(s segment) (time.Time, bool, error) {
	b, err := os.ReadFile(s.path)
	if err != nil {
		return time.Time{}, false, fmt.Errorf("journal: %w", err)
	}
	var last Record
	var ok bool
	scanBytes(b, s.base, func(r Record) { last, ok = r, true })
	return last.TS, ok, nil
}

// LastOfKind returns the newest durable record of kind with Seq <= atMost
// (atMost 0 means no bound but durability).
func (j *Journal) LastOfKind(kind string, atMost uint64) (Record, bool, error) {
	j.mu.Lock()
	if atMost == 0 || atMost > j.durable {
		atMost = j.durable
	}
	if atMost == 0 {
		j.mu.Unlock()
		return Record{}, false, nil
	}
	if r, ok := j.lastKind[kind]; ok && r.Seq <= atMost {
		j.mu.Unlock()
		return r, true, nil
	}
	segs := append([]segment(nil), j.segs...)
	j.mu.Unlock()
	for i := len(segs) - 1; i >= 0; i-- {
		if segs[i].base > atMost {
			continue
		}
		b, err := os.ReadFile(segs[i].path)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				break // pruned meanwhile
			}
			return Record{}, false, fmt.Errorf("journal: %w", err)
		}
		var found Record
		var ok bool
		scanBytes(b, segs[i].base, func(r Record) {
			if r.Kind == kind && r.Seq <= atMost {
				found, ok = r, true
			}
		})
		if ok {
			return found, true, nil
		}
	}
	return Record{}, false, nil
}

// Close makes every record written so far durable (the syncer's last
// batch), closes the journal and releases its lock. It returns the
// journal's sticky error if a write or sync ever failed: records after the
// last good sync may then be lost.
func (j *Journal) Close() error {
	// A second caller, concurrent or later, waits for the first to finish
	// closing the files and gets its result.
	j.closeOnce.Do(func() { j.closeErr = j.close() })
	return j.closeErr
}

func (j *Journal) close() error {
	j.mu.Lock()
	j.closing = true
	j.wake.Broadcast()
	j.mu.Unlock()
	<-j.syncDone

	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	err := j.failed
	if cerr := j.active.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("journal: close: %w", cerr)
	}
	for _, r := range j.retired {
		r.Close()
	}
	j.retired = nil
	j.lock.Close()
	close(j.changed)
	j.changed = make(chan struct{})
	return err
}
