package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// DamagedDir is the folder inside a journal directory where Repair puts
// each damaged segment, whole, before it writes the repaired one.
const DamagedDir = "damaged"

// DamagedEvent is the "event" of the record Repair writes in place of each
// record it could not read.
const DamagedEvent = "journal_damaged"

// Damage is one run of unreadable bytes in a segment.
type Damage struct {
	// Segment is the segment file's base name.
	Segment string `json:"segment"`
	// Offset and Bytes place the unreadable bytes in it.
	Offset int64 `json:"offset"`
	Bytes  int64 `json:"bytes"`
	// FirstSeq..LastSeq are the records lost in them (LastSeq is 0 when
	// it cannot be known: a tail of the newest segment).
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq,omitempty"`
	// Tail: nothing readable follows in the newest segment. That is how a
	// write torn by a crash looks, and Open cuts it off by itself.
	Tail bool `json:"tail,omitempty"`

	toEnd bool // no whole record follows in the segment
	whole bool // toEnd, and the bad frame was written whole (see notTorn)
}

// Records is how many records the damage lost (0 for a tail).
func (d Damage) Records() uint64 {
	if d.LastSeq < d.FirstSeq {
		return 0
	}
	return d.LastSeq - d.FirstSeq + 1
}

// CheckReport is what Check found.
type CheckReport struct {
	Dir      string `json:"dir"`
	Segments int    `json:"segments"`
	// Readable counts the records that read back whole, FirstSeq and
	// LastSeq the oldest and newest of them.
	Readable uint64   `json:"readable"`
	FirstSeq uint64   `json:"first_seq"`
	LastSeq  uint64   `json:"last_seq"`
	Damage   []Damage `json:"damage,omitempty"`
	// BadID says what is wrong with journal.id when it is there but is
	// not a 16-digit hex id (Open refuses it; Repair writes it again).
	BadID string `json:"journal_id_damaged,omitempty"`
	// MissingID says that journal.id is missing while the journal holds
	// records, and the id their ids begin with (Open refuses it; Repair
	// writes it again from them).
	MissingID string `json:"journal_id_missing,omitempty"`
}

// Damaged reports whether a record a reader would reach is unreadable:
// damage other than a torn tail of the newest segment (which Open cuts).
func (r CheckReport) Damaged() bool {
	if r.BadID != "" || r.MissingID != "" {
		return true
	}
	for _, d := range r.Damage {
		if !d.Tail {
			return true
		}
	}
	return false
}

// segScan is one segment read frame by frame, resynchronising after
// damage on the next frame that reads back whole.
type segScan struct {
	good   []span // whole records, in order
	damage []Damage
	next   uint64 // seq after the last whole record
}

type span struct {
	off, n int64
	seq    uint64
}

// recordStart is how every record's JSON begins (Record's first field).
var recordStart = []byte(`{"seq":`)

// scanDamaged reads b (a segment of base) and lists its whole records and
// the damaged runs between them. A run ends at the next frame, at any
// offset, whose checksum matches and that decodes to a record with a
// later seq; within the segment a record may not go back in seq.
func scanDamaged(name string, b []byte, base uint64) segScan {
	var s segScan
	want := base
	off := int64(0)
	for off < int64(len(b)) {
		if p, n, ok := readFrame(b[off:]); ok {
			if r, ok := decodeRecord(p, want); ok {
				s.good = append(s.good, span{off, int64(n), r.Seq})
				off += int64(n)
				want++
				continue
			}
		}
		// Damage at off: find the next whole record after it.
		at, seq := resync(b, off+1, want)
		if at < 0 {
			s.damage = append(s.damage, Damage{Segment: name, Offset: off, Bytes: int64(len(b)) - off, FirstSeq: want, toEnd: true, whole: notTorn(b[off:], off, want)})
			break
		}
		s.damage = append(s.damage, Damage{Segment: name, Offset: off, Bytes: at - off, FirstSeq: want, LastSeq: seq - 1})
		off, want = at, seq
	}
	s.next = want
	return s
}

// resync finds the first offset from from at which a whole record with a
// seq at or after want starts; -1 if none does.
func resync(b []byte, from int64, want uint64) (int64, uint64) {
	for off := from; off+headerLen+int64(len(recordStart)) <= int64(len(b)); off++ {
		i := bytes.Index(b[off+headerLen:], recordStart)
		if i < 0 {
			return -1, 0
		}
		off += int64(i)
		p, _, ok := readFrame(b[off:])
		if !ok {
			continue
		}
		var r Record
		if json.Unmarshal(p, &r) != nil || r.Seq < want {
			continue
		}
		if _, ok := decodeRecord(p, r.Seq); ok {
			return off, r.Seq
		}
	}
	return -1, 0
}

// Check reads every segment of the journal in dir, frame by frame, and
// reports each run of bytes that does not read back as the next record,
// and each segment that ends short of the next one's first seq (a Damage
// of 0 bytes at the segment's end).
// It takes no lock and changes nothing, so it is safe while a daemon
// runs (the newest segment's unsynced end may then show as a tail).
func Check(dir string) (CheckReport, error) {
	rep := CheckReport{Dir: dir}
	if _, err := os.Stat(dir); err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	_, err := loadEpochNoCreate(dir)
	missing := errors.Is(err, os.ErrNotExist)
	if errors.Is(err, ErrCorrupt) {
		rep.BadID = err.Error()
	} else if err != nil && !missing {
		return rep, err
	}
	if missing {
		// Until ops23 a missing journal.id was not reported, and the
		// next start made a new one.
		if e, ok, err := recordsEpoch(dir); err != nil {
			return rep, err
		} else if ok {
			rep.MissingID = "journal.id is missing; the records' ids begin with " + e
		}
	}
	segs, err := listSegments(dir)
	if err != nil {
		return rep, err
	}
	rep.Segments = len(segs)
	for i, sg := range segs {
		b, err := os.ReadFile(sg.path)
		if err != nil {
			return rep, fmt.Errorf("journal: %w", err)
		}
		sc := scanDamaged(filepath.Base(sg.path), b, sg.base)
		rep.Readable += uint64(len(sc.good))
		if len(sc.good) > 0 {
			if rep.FirstSeq == 0 {
				rep.FirstSeq = sc.good[0].seq
			}
			rep.LastSeq = sc.good[len(sc.good)-1].seq
		}
		for _, d := range sc.damage {
			if d.toEnd {
				if i == len(segs)-1 {
					if d.whole {
						// Damaged after it was written, not torn:
						// one record lost (Open refuses it).
						d.LastSeq = d.FirstSeq
					} else {
						d.Tail = true
					}
				} else if next := segs[i+1].base; next > d.FirstSeq {
					// A run to the segment's end: the next segment
					// starts at the next seq.
					d.LastSeq = next - 1
				}
			}
			rep.Damage = append(rep.Damage, d)
		}
		// A segment before the newest that ends, at a frame boundary,
		// short of the next one's first seq: no byte is damaged, but
		// the records between are gone, and a reader passes over them.
		endsDamaged := len(sc.damage) > 0 && sc.damage[len(sc.damage)-1].toEnd
		if i < len(segs)-1 && !endsDamaged && sc.next < segs[i+1].base {
			rep.Damage = append(rep.Damage, Damage{Segment: filepath.Base(sg.path), Offset: int64(len(b)),
				FirstSeq: sc.next, LastSeq: segs[i+1].base - 1})
		}
	}
	return rep, nil
}

// RepairReport says what Repair did.
type RepairReport struct {
	CheckReport
	// Aside is the folder (inside the journal directory) the damaged
	// segments were moved to, whole; empty if nothing was repaired.
	Aside string `json:"aside,omitempty"`
	// Replaced counts the records written in place of unreadable ones.
	Replaced uint64 `json:"replaced"`
	// IDWritten: journal.id (damaged or missing) was written again from
	// the records' ids.
	IDWritten bool `json:"journal_id_written,omitempty"`
}

// needsRepair reports whether Repair has anything to do.
func (r CheckReport) needsRepair() bool {
	return len(r.Damage) > 0 || r.BadID != "" || r.MissingID != ""
}

// Repair makes a damaged journal readable again, keeping every record
// that reads back whole and every byte that does not. It takes the
// journal's lock, so the daemon must be stopped (ErrLocked otherwise).
// Each segment with damage is moved, whole, into damaged/<UTC time>/ in
// dir, and a repaired segment written in its place: its whole records
// byte for byte, and for each seq lost in the damage an "event" record
// with event journal_damaged (the same seq and id, so a consumer that
// had the lost record drops it as a re-delivery, and one that had not
// learns it is gone) naming the segment, offset and bytes kept aside. A
// damaged tail of the newest segment (how a torn write looks) is moved
// aside with its segment and not replaced: Open would cut it anyway.
// A journal without damage is left as it is.
func Repair(dir string, now time.Time) (RepairReport, error) {
	var rep RepairReport
	lf, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR, 0)
	if err != nil {
		return rep, fmt.Errorf("journal: lock: %w", err)
	}
	defer lf.Close()
	if err := lockExclusive(lf); err != nil {
		if errors.Is(err, ErrLocked) {
			return rep, fmt.Errorf("journal: %s: %w (stop the daemon first)", dir, ErrLocked)
		}
		return rep, fmt.Errorf("journal: lock: %w", err)
	}
	epoch, err := loadEpochNoCreate(dir)
	if err != nil && !errors.Is(err, ErrCorrupt) && !errors.Is(err, os.ErrNotExist) {
		return rep, err
	}
	rep.CheckReport, err = Check(dir)
	if err != nil || !rep.needsRepair() {
		return rep, err
	}
	segs, err := listSegments(dir)
	if err != nil {
		return rep, err
	}
	if epoch == "" {
		// journal.id damaged or missing: every record's id begins
		// with it; the newest record's is the one it last held.
		if epoch, err = epochFromRecords(segs); err != nil {
			return rep, err
		}
	}
	if rep.MissingID != "" {
		// Nothing damaged to keep aside: the id is written again.
		if err := writeFileSync(filepath.Join(dir, "journal.id"), []byte(epoch+"\n")); err != nil {
			return rep, err
		}
		sameOwner(filepath.Join(dir, "journal.id"), dir)
		rep.IDWritten = true
		if len(rep.Damage) == 0 {
			return rep, nil
		}
	}
	stamp := now.UTC().Format("20060102T150405Z")
	aside := filepath.Join(DamagedDir, stamp)
	if err := os.MkdirAll(filepath.Join(dir, aside), 0o750); err != nil {
		return rep, fmt.Errorf("journal: repair: %w", err)
	}
	sameOwner(filepath.Join(dir, DamagedDir), dir)
	sameOwner(filepath.Join(dir, aside), dir)
	rep.Aside = aside
	if rep.BadID != "" {
		if err := repairEpoch(dir, epoch, filepath.Join(aside, "journal.id")); err != nil {
			return rep, err
		}
		rep.IDWritten = true
	}
	bySeg := map[string][]Damage{}
	for _, d := range rep.Damage {
		bySeg[d.Segment] = append(bySeg[d.Segment], d)
	}
	for _, sg := range segs {
		name := filepath.Base(sg.path)
		ds := bySeg[name]
		if len(ds) == 0 {
			continue
		}
		n, err := repairSegment(dir, sg, ds, epoch, filepath.Join(aside, name), now)
		rep.Replaced += n
		if err != nil {
			return rep, err
		}
	}
	return rep, syncDir(dir)
}

// loadEpochNoCreate reads journal.id as Open does, but makes none: an
// error wrapping os.ErrNotExist if it is missing, ErrCorrupt if damaged.
func loadEpochNoCreate(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, "journal.id")); err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	return loadEpoch(dir)
}

// epochFromRecords is the journal id in the newest record that reads
// back whole (a record's id is "<journal id>-<seq>").
func epochFromRecords(segs []segment) (string, error) {
	e, ok, err := segmentsEpoch(segs)
	if err != nil {
		return "", fmt.Errorf("journal: repair: %w", err)
	}
	if !ok || e == "" {
		return "", errors.New("journal: repair: journal.id is damaged or missing and no record reads back whole to take the id from; if the journal holds no record, remove journal.id (a start makes a new one)")
	}
	return e, nil
}

// Identify reads, without locking or changing anything, the journal id
// and the newest seq of the journal in dir as far as they can be read:
// journal.id, or if it is missing or damaged the id in the newest whole
// record's id; and the seq of the newest record that reads back whole in
// the newest segment holding one. What cannot be read is "" or 0. It is
// for saying something about a journal Open refused.
func Identify(dir string) (epoch string, lastSeq uint64) {
	epoch, _ = loadEpochNoCreate(dir)
	segs, err := listSegments(dir)
	if err != nil {
		return epoch, 0
	}
	for i := len(segs) - 1; i >= 0 && (lastSeq == 0 || epoch == ""); i-- {
		b, err := os.ReadFile(segs[i].path)
		if err != nil {
			continue
		}
		sc := scanDamaged(filepath.Base(segs[i].path), b, segs[i].base)
		for k := len(sc.good) - 1; k >= 0 && (lastSeq == 0 || epoch == ""); k-- {
			if lastSeq == 0 {
				lastSeq = sc.good[k].seq
			}
			if epoch == "" {
				epoch = spanEpoch(b, sc.good[k])
			}
		}
	}
	return epoch, lastSeq
}

// recordsEpoch is segmentsEpoch over the journal in dir.
func recordsEpoch(dir string) (string, bool, error) {
	segs, err := listSegments(dir)
	if err != nil {
		return "", false, err
	}
	return segmentsEpoch(segs)
}

// segmentsEpoch reports whether any record in segs reads back whole, and
// the journal id in the newest one whose id has the form "<journal
// id>-<seq>" ("" if none has).
func segmentsEpoch(segs []segment) (string, bool, error) {
	found := false
	for i := len(segs) - 1; i >= 0; i-- {
		b, err := os.ReadFile(segs[i].path)
		if err != nil {
			return "", false, fmt.Errorf("journal: %w", err)
		}
		sc := scanDamaged(filepath.Base(segs[i].path), b, segs[i].base)
		for k := len(sc.good) - 1; k >= 0; k-- {
			found = true
			if e := spanEpoch(b, sc.good[k]); e != "" {
				return e, true, nil
			}
		}
	}
	return "", found, nil
}

// spanEpoch is the journal id in the id of the whole record at g in b, or
// "" if its id is not "<16 hex digits>-<seq>".
func spanEpoch(b []byte, g span) string {
	p, _, ok := readFrame(b[g.off : g.off+g.n])
	if !ok {
		return ""
	}
	var r Record
	if json.Unmarshal(p, &r) != nil {
		return ""
	}
	e, seq, ok := strings.Cut(r.ID, "-")
	if _, err := hex.DecodeString(e); ok && err == nil && len(e) == 16 && seq == strconv.FormatUint(r.Seq, 10) {
		return e
	}
	return ""
}

// repairEpoch keeps the damaged journal.id at aside (relative to dir) and
// writes epoch in its place.
func repairEpoch(dir, epoch, aside string) error {
	p := filepath.Join(dir, "journal.id")
	b, err := os.ReadFile(p)
	if err != nil {
		return fmt.Errorf("journal: repair: %w", err)
	}
	kept := filepath.Join(dir, aside)
	if err := writeSynced(kept, b); err != nil {
		return err
	}
	sameOwner(kept, p)
	if err := syncDir(filepath.Dir(kept)); err != nil {
		return err
	}
	if err := writeFileSync(p, []byte(epoch+"\n")); err != nil {
		return err
	}
	sameOwner(p, kept)
	return nil
}

// repairSegment writes sg again without its damage (see Repair), the
// original kept at aside (relative to dir). It returns how many records
// it wrote in place of lost ones.
func repairSegment(dir string, sg segment, ds []Damage, epoch, aside string, now time.Time) (uint64, error) {
	b, err := os.ReadFile(sg.path)
	if err != nil {
		return 0, fmt.Errorf("journal: repair: %w", err)
	}
	sc := scanDamaged(filepath.Base(sg.path), b, sg.base)
	var out bytes.Buffer
	var replaced uint64
	gi := 0
	for _, d := range ds {
		for gi < len(sc.good) && sc.good[gi].off < d.Offset {
			g := sc.good[gi]
			out.Write(b[g.off : g.off+g.n])
			gi++
		}
		if d.Tail {
			continue
		}
		e := damageEpoch(b, sc.good, d, epoch)
		for seq := d.FirstSeq; seq <= d.LastSeq && seq >= d.FirstSeq; seq++ {
			body, err := json.Marshal(map[string]any{
				"event": DamagedEvent, "segment": d.Segment, "offset": d.Offset, "bytes": d.Bytes,
				"first_seq": d.FirstSeq, "last_seq": d.LastSeq, "kept_in": filepath.ToSlash(aside),
			})
			if err != nil {
				return replaced, fmt.Errorf("journal: repair: %w", err)
			}
			rec := Record{Seq: seq, ID: e + "-" + strconv.FormatUint(seq, 10), Kind: "event", TS: now.UTC(), Body: body}
			payload, err := json.Marshal(rec)
			if err != nil {
				return replaced, fmt.Errorf("journal: repair: %w", err)
			}
			var hdr [headerLen]byte
			binary.LittleEndian.PutUint32(hdr[0:4], uint32(len(payload)))
			binary.LittleEndian.PutUint32(hdr[4:8], crc32.Checksum(payload, castagnoli))
			out.Write(hdr[:])
			out.Write(payload)
			replaced++
		}
	}
	for ; gi < len(sc.good); gi++ {
		g := sc.good[gi]
		out.Write(b[g.off : g.off+g.n])
	}
	// At every moment the segment's name holds a whole segment, the
	// original or the repaired one, so a crash (a power cut) anywhere in
	// here leaves a journal that reads as before the repair or after it,
	// and a second repair finishes it. The repaired bytes are written and
	// synced under a temporary name; the original is kept aside as a
	// second name for the same file (a hard link: its bytes are never
	// rewritten), or where links are not to be had, as a synced copy; then
	// the repaired file replaces it by one rename. Until session 21 the
	// original was renamed aside first: a crash before the second rename
	// left the journal without the segment, and a newest segment missing
	// at start meant new records under seqs (and ids) already published.
	tmp := filepath.Join(dir, "."+filepath.Base(sg.path)+".repair")
	if err := writeSynced(tmp, out.Bytes()); err != nil {
		return replaced, err
	}
	sameOwner(tmp, sg.path)
	repairStep("repaired written", sg.path)
	kept := filepath.Join(dir, aside)
	if err := keepOriginal(sg.path, kept, b); err != nil {
		os.Remove(tmp)
		return replaced, err
	}
	if err := syncDir(filepath.Dir(kept)); err != nil {
		os.Remove(tmp)
		return replaced, err
	}
	repairStep("original kept", sg.path)
	if err := os.Rename(tmp, sg.path); err != nil {
		os.Remove(tmp)
		return replaced, fmt.Errorf("journal: repair: %w", err)
	}
	if err := syncDir(dir); err != nil {
		return replaced, err
	}
	repairStep("replaced", sg.path)
	return replaced, nil
}

// damageEpoch is the journal id for the records lost in d: the one in the
// id of the whole record before it in the segment, or else after it, or
// else epoch (journal.id's). A journal whose journal.id was lost and made
// anew by an earlier version holds ids of two journal ids; a record
// written in place of a lost one must take the id the lost one had, so
// that a consumer that had it drops it as a re-delivery.
func damageEpoch(b []byte, good []span, d Damage, epoch string) string {
	for k := len(good) - 1; k >= 0; k-- {
		if good[k].off < d.Offset {
			if e := spanEpoch(b, good[k]); e != "" {
				return e
			}
			break
		}
	}
	for _, g := range good {
		if g.off >= d.Offset+d.Bytes {
			if e := spanEpoch(b, g); e != "" {
				return e
			}
			break
		}
	}
	return epoch
}

// keepOriginal gives the segment at path (whose bytes are b) a second
// name, kept: a hard link, or where links are not to be had, a synced
// copy. A repair run again after a crash (in the same second, so to the
// same folder) finds kept there already: the same file, linked by the
// run that crashed, or a copy with the same bytes, is kept as it is.
// Until ops23 the re-run wrote the copy over it, and with the link that
// cut the one file the segment's name still held to nothing before it
// wrote it again: a crash in between lost the segment. A copy is made
// only as a new file, never over one.
func keepOriginal(path, kept string, b []byte) error {
	err := os.Link(path, kept)
	if err == nil {
		return nil
	}
	if errors.Is(err, os.ErrExist) {
		if same, serr := sameBytes(path, kept, b); serr != nil {
			return fmt.Errorf("journal: repair: keep the damaged segment: %w", serr)
		} else if same {
			return nil
		}
		return fmt.Errorf("journal: repair: keep the damaged segment: %s is there already and holds other bytes; move it away and repair again", kept)
	}
	if err := writeSyncedFlag(kept, b, os.O_EXCL); err != nil {
		return fmt.Errorf("journal: repair: keep the damaged segment: %w", err)
	}
	sameOwner(kept, path)
	return nil
}

// sameBytes reports whether kept is the file at path (a link to it) or
// holds b.
func sameBytes(path, kept string, b []byte) (bool, error) {
	ki, err := os.Stat(kept)
	if err != nil {
		return false, err
	}
	if pi, err := os.Stat(path); err == nil && os.SameFile(pi, ki) {
		return true, nil
	}
	k, err := os.ReadFile(kept)
	if err != nil {
		return false, err
	}
	return bytes.Equal(k, b), nil
}

// repairStep is called after each step of repairSegment that changes the
// journal folder (tests set it to look at the folder a crash there would
// leave).
var repairStep = func(step, seg string) {}

// writeSynced writes b to a new file at path and syncs it; on an error
// the file is removed.
func writeSynced(path string, b []byte) error {
	return writeSyncedFlag(path, b, os.O_TRUNC)
}

// writeSyncedFlag is writeSynced with flag (os.O_TRUNC: over a file there
// already; os.O_EXCL: only as a new file) added to the open.
func writeSyncedFlag(path string, b []byte, flag int) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|flag, 0o640)
	if err != nil {
		return fmt.Errorf("journal: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return fmt.Errorf("journal: %w", err)
	}
	return nil
}

// keepTornTail copies the bytes Open is about to cut off the newest
// segment (from off on) into damaged/ in the journal directory, for the
// audit, unless they are all zeros (a power cut's unwritten blocks, which
// hold nothing). A torn write holds no record anyone was told of (Open
// refuses to cut when whole records follow the bad frame: see
// wholeRecordsAfter). Keeping the bytes is best effort: a failure is
// logged and the start goes on.
func (j *Journal) keepTornTail(f *os.File, off int64, next uint64) {
	b, err := tailBytes(f, off)
	if err != nil {
		j.log.Error("journal: torn tail not kept", "err", err)
		return
	}
	if len(b) == 0 || bytes.Count(b, []byte{0}) == len(b) {
		return
	}
	name := fmt.Sprintf("torn-%s-%s-%d.bin", j.opts.Now().UTC().Format("20060102T150405.000Z"), strings.TrimSuffix(filepath.Base(f.Name()), segSuffix), off)
	rel := filepath.Join(DamagedDir, name)
	err = os.MkdirAll(filepath.Join(j.dir, DamagedDir), 0o750)
	if err == nil {
		err = writeFileSync(filepath.Join(j.dir, rel), b)
	}
	if err != nil {
		j.log.Error("journal: torn tail not kept", "bytes", len(b), "err", err)
		return
	}
	j.log.Info("journal: torn tail kept", "bytes", len(b), "kept_in", rel)
}

// tailBytes reads f from off to its end.
func tailBytes(f *os.File, off int64) ([]byte, error) {
	info, err := f.Stat()
	if err != nil || info.Size() <= off {
		return nil, err
	}
	b := make([]byte, info.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil {
		return nil, err
	}
	return b, nil
}

// wholeFrame reports whether b (from a frame that fails to read to the
// segment's end) is one frame whole in length: its header gives a length
// that ends exactly at the end of b, and its payload is not all zeros. A
// write torn by a crash ends short of the length its header gives (or,
// after a power cut, in blocks of zeros); a frame whole in length that
// fails its checksum was damaged after it was written, and it may have
// been synced and published, so its seq may not go to a new record.
func wholeFrame(b []byte) bool {
	if len(b) <= headerLen {
		return false
	}
	l := binary.LittleEndian.Uint32(b[0:4])
	if l == 0 || l > MaxRecordBytes || int64(len(b)) != headerLen+int64(l) {
		return false
	}
	return bytes.Count(b[headerLen:], []byte{0}) != int(l)
}

// notTorn reports whether b, from a frame that fails to read to the end
// of the newest segment (at is its offset in the segment), is a record
// written whole and damaged since, not a write torn by a crash: either
// its frame is whole in length (wholeFrame), or the bytes after its
// header begin with the whole JSON of the record with seq want. A torn
// write holds only a beginning of that JSON, which never parses (the
// object closes at its last byte), so a record that parses there was
// written to its end, and a length header that does not fit it was
// damaged after. Until ops23 such a record was cut as torn, and its seq
// and id given to the next record. One exception (review23o): a header
// that reads as zeros up to a sector boundary of the file, with the rest
// written, is what a power cut leaves when the block holding the frame's
// head was not written and the next one was; that record was never
// synced, so never published, and is cut as torn.
func notTorn(b []byte, at int64, want uint64) bool {
	if wholeFrame(b) {
		return true
	}
	if len(b) <= headerLen || b[headerLen] != '{' || zerosToSector(b[:headerLen], at) {
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b[headerLen:]))
	var raw json.RawMessage
	if dec.Decode(&raw) != nil {
		return false
	}
	_, ok := decodeRecord(raw, want)
	return ok
}

// sectorBytes is the smallest unit a disk writes whole; the file system's
// blocks are multiples of it.
const sectorBytes = 512

// zerosToSector reports whether h, at offset at of its file, begins with
// zero bytes that reach a sector boundary: the end of a block left
// unwritten by a power cut.
func zerosToSector(h []byte, at int64) bool {
	for i := 0; i < len(h) && h[i] == 0; i++ {
		if (at+int64(i)+1)%sectorBytes == 0 {
			return true
		}
	}
	return false
}

// wholeRecordsAfter reports whether a whole record with a seq at or after
// next follows the bad frame at off, and the first such seq. A read error
// counts as none: the cut goes on as before.
func wholeRecordsAfter(f *os.File, off int64, next uint64) (uint64, bool) {
	b, err := tailBytes(f, off)
	if err != nil || len(b) == 0 {
		return 0, false
	}
	if at, seq := resync(b, 1, next); at >= 0 {
		return seq, true
	}
	return 0, false
}
