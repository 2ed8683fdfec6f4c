package journal

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// markedJournal writes n roll records marked rec-01..rec-NN in small
// segments (several records each) and closes it.
func markedJournal(t *testing.T, dir string, n int) []Record {
	t.Helper()
	j, err := Open(dir, Options{SegmentBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for i := 1; i <= n; i++ {
		r, err := j.Append("roll", t0.Add(time.Duration(i)*time.Second), body{N: i, Note: fmt.Sprintf("rec-%02d", i)})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// segmentHolding is the path of the segment whose bytes contain marker.
func segmentHolding(t *testing.T, dir, marker string) (string, []byte, int) {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.log"))
	for _, p := range segs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if i := bytes.Index(b, []byte(marker)); i >= 0 {
			return p, b, i
		}
	}
	t.Fatalf("%q is in no segment", marker)
	return "", nil, 0
}

// frameStart is the offset of the frame whose payload holds marker.
func frameStart(t *testing.T, b []byte, at int) int {
	t.Helper()
	i := bytes.LastIndex(b[:at], recordStart)
	if i < headerLen {
		t.Fatal("no frame before the marker")
	}
	return i - headerLen
}

// TestRepairDamagedRecords: records damaged on disk in segments before the
// newest (a flipped payload byte, a length header overwritten, a run of
// zeros across two records), where Open does not look and the publisher's
// reader stops for good. Check names each run and the seqs lost in it;
// Repair moves each damaged segment aside byte for byte, and the journal
// then reads from seq 1 to the end without a gap: every whole record as it
// was, each lost one an event journal_damaged with the same seq and id.
// Before there was no way but to edit the files by hand.
func TestRepairDamagedRecords(t *testing.T) {
	dir := t.TempDir()
	orig := markedJournal(t, dir, 40)

	// 1. rec-05: one payload byte (the checksum fails).
	if err := journaltest.Damage(dir, "rec-05"); err != nil {
		t.Fatal(err)
	}
	// 2. rec-12: its length header (the reader cannot even find where
	// the next frame starts).
	p, b, at := segmentHolding(t, dir, "rec-12")
	f := frameStart(t, b, at)
	binary.LittleEndian.PutUint32(b[f:], 0x00ffffff)
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	// 3. zeros from the middle of rec-20 into rec-21 (when in one segment).
	p, b, at = segmentHolding(t, dir, "rec-20")
	end := at + 60
	if _, _, at21 := segmentHolding(t, dir, "rec-21"); filepath.Base(p) != filepath.Base(mustSeg(t, dir, "rec-21")) || at21 < at {
		t.Fatal("rec-20 and rec-21 are not in one segment; the test's layout changed")
	}
	for i := at; i < end && i < len(b); i++ {
		b[i] = 0
	}
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	before := segmentsBytes(t, dir)

	// The damage stops a reader at rec-05, as it stops the publisher.
	j := mustOpen(t, dir, Options{})
	r := j.Reader(1)
	var err error
	for err == nil {
		_, err = r.Next()
	}
	r.Close()
	if !errors.Is(err, ErrCorrupt) {
		t.Fatalf("reader before the repair: %v, want ErrCorrupt", err)
	}
	// Repair takes the lock: not while the journal is open.
	if _, err := Repair(dir, t0); !errors.Is(err, ErrLocked) {
		t.Fatalf("Repair while the journal is open: %v, want ErrLocked", err)
	}
	j.Close()

	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	lost := map[uint64]bool{}
	for _, d := range rep.Damage {
		for s := d.FirstSeq; s <= d.LastSeq; s++ {
			lost[s] = true
		}
	}
	want := map[uint64]bool{5: true, 12: true, 20: true, 21: true}
	if !rep.Damaged() || fmt.Sprint(lost) != fmt.Sprint(want) {
		t.Fatalf("Check: damage %+v, lost %v; want lost %v", rep.Damage, lost, want)
	}
	if rep.Readable != 36 || rep.FirstSeq != 1 || rep.LastSeq != 40 {
		t.Errorf("Check: %d readable, seq %d..%d; want 36, 1..40", rep.Readable, rep.FirstSeq, rep.LastSeq)
	}

	now := t0.Add(time.Hour)
	rr, err := Repair(dir, now)
	if err != nil {
		t.Fatalf("Repair: %v", err)
	}
	if rr.Replaced != 4 || rr.Aside == "" {
		t.Fatalf("Repair: %+v, want 4 replaced and a folder aside", rr)
	}
	// Every damaged segment is kept aside, byte for byte.
	aside, _ := filepath.Glob(filepath.Join(dir, rr.Aside, "seg-*.log"))
	if len(aside) != 3 {
		t.Errorf("%d segments aside, want 3", len(aside))
	}
	for _, a := range aside {
		got, _ := os.ReadFile(a)
		if !bytes.Equal(got, before[filepath.Base(a)]) {
			t.Errorf("%s aside differs from the damaged segment", filepath.Base(a))
		}
	}

	j = mustOpen(t, dir, Options{})
	if j.LastSeq() != 40 {
		t.Fatalf("after the repair the journal ends at seq %d, want 40", j.LastSeq())
	}
	got := readAll(t, j, 1)
	if len(got) != 40 {
		t.Fatalf("read %d records after the repair, want 40", len(got))
	}
	for i, r := range got {
		o := orig[i]
		if r.Seq != o.Seq || r.ID != o.ID {
			t.Fatalf("record %d: seq %d id %s, want %d %s", i, r.Seq, r.ID, o.Seq, o.ID)
		}
		if !want[r.Seq] {
			if r.Kind != o.Kind || string(r.Body) != string(o.Body) || !r.TS.Equal(o.TS) {
				t.Errorf("seq %d changed by the repair: %+v", r.Seq, r)
			}
			continue
		}
		var ev struct {
			KeptIn string `json:"kept_in"`
		}
		var m map[string]any
		if err := json.Unmarshal(r.Body, &m); err != nil || r.Kind != "event" || m["event"] != DamagedEvent {
			t.Errorf("seq %d: %s %s, want an event %s", r.Seq, r.Kind, r.Body, DamagedEvent)
		}
		_ = json.Unmarshal(r.Body, &ev)
		if _, err := os.Stat(filepath.Join(dir, ev.KeptIn)); err != nil {
			t.Errorf("seq %d names %q as kept, which is not there: %v", r.Seq, ev.KeptIn, err)
		}
	}
	// New records carry on after it.
	if rec, err := j.Append("roll", now, body{N: 41}); err != nil || rec.Seq != 41 {
		t.Fatalf("append after the repair: %+v %v", rec, err)
	}
	j.Close()
	if rep, err := Check(dir); err != nil || len(rep.Damage) != 0 || rep.Readable != 41 {
		t.Errorf("Check after the repair: %+v %v", rep, err)
	}
	if rr, err := Repair(dir, now); err != nil || rr.Aside != "" || rr.Replaced != 0 {
		t.Errorf("Repair of a sound journal: %+v %v, want nothing done", rr, err)
	}
}

// TestRepairTornTail: the newest segment's tail cut mid-record (a crash)
// is not damage a reader meets (Open cuts it); Check reports it as a
// tail, and Repair keeps its bytes aside without writing anything in
// place of it.
func TestRepairTornTail(t *testing.T) {
	dir := t.TempDir()
	markedJournal(t, dir, 12)
	p, b, at := segmentHolding(t, dir, "rec-12")
	if err := os.WriteFile(p, b[:at], 0o640); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Damaged() || len(rep.Damage) != 1 || !rep.Damage[0].Tail || rep.Damage[0].FirstSeq != 12 {
		t.Fatalf("Check: %+v, want one tail from seq 12", rep)
	}
	rr, err := Repair(dir, t0)
	if err != nil || rr.Replaced != 0 {
		t.Fatalf("Repair: %+v %v", rr, err)
	}
	kept, err := os.ReadFile(filepath.Join(dir, rr.Aside, filepath.Base(p)))
	if err != nil || !bytes.Equal(kept, b[:at]) {
		t.Errorf("the torn segment is not kept aside as it was: %v", err)
	}
	j := mustOpen(t, dir, Options{})
	if n := len(readAll(t, j, 1)); n != 11 || j.NextSeq() != 12 {
		t.Errorf("after the repair: %d records, next seq %d; want 11, 12", n, j.NextSeq())
	}
}

func mustSeg(t *testing.T, dir, marker string) string {
	p, _, _ := segmentHolding(t, dir, marker)
	return p
}

func segmentsBytes(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.log"))
	for _, p := range segs {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// TestOpenKeepsTornTail: the bytes Open cuts off the newest segment are
// kept in damaged/ for the audit (not when they are only zeros). A damaged
// record with whole records after it is not cut (since session 21; before
// it was, the whole records with it, and their seqs went to new records):
// Open refuses with ErrCorrupt and leaves the segment as it was, and after
// Repair it opens with every record, the damaged one as its event.
func TestOpenKeepsTornTail(t *testing.T) {
	for _, c := range []struct {
		name    string
		mutate  func(b []byte, at int) []byte
		kept    bool
		dropped bool
	}{
		{"cut mid-record", func(b []byte, at int) []byte { return b[:at+5] }, true, false},
		{"zeros after", func(b []byte, at int) []byte { return append(b, make([]byte, 300)...) }, false, false},
		{"damaged record, whole ones after", func(b []byte, at int) []byte { b[at] ^= 0x20; return b }, true, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			markedJournal(t, dir, 6) // one segment
			p, b, at := segmentHolding(t, dir, "rec-04")
			b = c.mutate(b, at)
			if err := os.WriteFile(p, b, 0o640); err != nil {
				t.Fatal(err)
			}
			good, _ := scanBytes(b, 1, nil)
			var logs bytes.Buffer
			j, err := Open(dir, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			if c.dropped {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("Open on a damaged record with whole ones after: %v, want ErrCorrupt", err)
				}
				if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
					t.Error("Open refused but changed the segment")
				}
				if kept, _ := filepath.Glob(filepath.Join(dir, DamagedDir, "*")); len(kept) != 0 {
					t.Errorf("kept %v on a refusal", kept)
				}
				if _, err := Repair(dir, t0); err != nil {
					t.Fatal(err)
				}
				j := mustOpen(t, dir, Options{})
				if got := readAll(t, j, 1); len(got) != 6 || got[3].Kind != "event" || got[4].ID != j.Epoch()+"-5" {
					t.Errorf("after Repair: %d records, want 6, the 4th the damaged record's event", len(got))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			j.Close()
			kept, _ := filepath.Glob(filepath.Join(dir, DamagedDir, "torn-*.bin"))
			if !c.kept {
				if len(kept) != 0 {
					t.Errorf("kept %v, want nothing (zeros)", kept)
				}
				return
			}
			if len(kept) != 1 {
				t.Fatalf("kept %v, want one file", kept)
			}
			got, _ := os.ReadFile(kept[0])
			if !bytes.Equal(got, b[good:]) {
				t.Errorf("kept %d bytes, want the %d cut off", len(got), len(b)-int(good))
			}
		})
	}
}

// FuzzRepair damages a journal of several segments anywhere (bytes
// written over a random place of a random segment) and checks that Check
// and Repair never fail or panic, and that after Repair the journal opens
// and reads without a gap from seq 1: each record either as it was, or a
// journal_damaged event in its place (only for seqs Check reported lost),
// and the seqs before the damage all as they were.
func FuzzRepair(f *testing.F) {
	f.Add(uint8(0), uint16(20), []byte{0xff})
	f.Add(uint8(1), uint16(0), []byte{0xff, 0xff, 0xff, 0x7f})
	f.Add(uint8(2), uint16(100), make([]byte, 200))
	f.Add(uint8(3), uint16(9), []byte(`{"seq":9,`))
	f.Fuzz(func(t *testing.T, segIdx uint8, at uint16, junk []byte) {
		if len(junk) == 0 {
			return
		}
		dir := t.TempDir()
		orig := markedJournal(t, dir, 24)
		segs, _ := filepath.Glob(filepath.Join(dir, "seg-*.log"))
		p := segs[int(segIdx)%len(segs)]
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		off := int(at) % (len(b) + 1)
		end := min(off+len(junk), len(b))
		copy(b[off:end], junk)
		if err := os.WriteFile(p, b, 0o640); err != nil {
			t.Fatal(err)
		}
		rep, err := Check(dir)
		if err != nil {
			t.Fatal(err)
		}
		lost := map[uint64]bool{}
		for _, d := range rep.Damage {
			for s := d.FirstSeq; s <= d.LastSeq && s >= d.FirstSeq; s++ {
				lost[s] = true
			}
		}
		got := repairedRecords(t, dir)
		for i, r := range got {
			if r.Seq != uint64(i+1) {
				t.Fatalf("record %d has seq %d", i, r.Seq)
			}
			if i >= len(orig) {
				t.Fatalf("%d records, more than the %d written", len(got), len(orig))
			}
			if r.ID != orig[i].ID {
				t.Fatalf("seq %d: id %s, want %s", r.Seq, r.ID, orig[i].ID)
			}
			if string(r.Body) == string(orig[i].Body) {
				continue
			}
			if !lost[r.Seq] || r.Kind != "event" || !strings.Contains(string(r.Body), DamagedEvent) {
				t.Fatalf("seq %d changed and not reported lost: %s", r.Seq, r.Body)
			}
		}
		// Only a tail of the newest segment may be missing.
		if len(got) < len(orig) && filepath.Base(p) != filepath.Base(segs[len(segs)-1]) {
			t.Fatalf("%d of %d records after repairing %s, not the newest segment", len(got), len(orig), filepath.Base(p))
		}
	})
}

// TestRepairCrashAtEveryStep: a power cut can stop a repair between any
// two of its steps. The folder each step leaves (copied as it is then) must
// hold every segment, each the original or the repaired one: Check on it
// finds every seq 1..40 either whole or reported lost, and a journal
// opened on it goes on after seq 40, never under a seq already given. A
// second repair on it ends as one repair does. Before session 21 Repair
// renamed the damaged segment aside before putting the repaired one in
// its place, and a cut between the two left no segment for its seqs.
func TestRepairCrashAtEveryStep(t *testing.T) {
	for _, marker := range []string{"rec-05", "rec-38"} { // a segment before the newest; the newest
		t.Run(marker, func(t *testing.T) {
			dir := t.TempDir()
			markedJournal(t, dir, 40)
			if err := journaltest.Damage(dir, marker); err != nil {
				t.Fatal(err)
			}
			var snaps []string
			var steps []string
			old := repairStep
			repairStep = func(step, seg string) {
				snap := t.TempDir()
				copyTopFiles(t, dir, snap)
				snaps = append(snaps, snap)
				steps = append(steps, step)
			}
			defer func() { repairStep = old }()
			if _, err := Repair(dir, t0); err != nil {
				t.Fatal(err)
			}
			repairStep = old
			if len(snaps) == 0 {
				t.Fatal("no step seen")
			}
			for i, snap := range snaps {
				rep, err := Check(snap)
				if err != nil {
					t.Fatalf("after %q: Check: %v", steps[i], err)
				}
				var lost uint64
				for _, d := range rep.Damage {
					lost += d.Records()
				}
				if rep.FirstSeq != 1 || rep.LastSeq != 40 || rep.Readable+lost != 40 {
					t.Errorf("a crash after %q leaves seq %d..%d, %d whole and %d reported lost of 40 (%d segments)",
						steps[i], rep.FirstSeq, rep.LastSeq, rep.Readable, lost, rep.Segments)
				}
				snap2 := t.TempDir()
				copyTopFiles(t, snap, snap2)
				// A start on it. With the damage in the newest segment,
				// unrepaired, Open refuses (whole records follow it).
				if marker == "rec-38" && steps[i] != "replaced" {
					if _, err := Open(snap, Options{SegmentBytes: 1024}); !errors.Is(err, ErrCorrupt) {
						t.Errorf("a crash after %q: Open %v, want ErrCorrupt", steps[i], err)
					}
				} else {
					j, err := Open(snap, Options{SegmentBytes: 1024})
					if err != nil {
						t.Fatalf("after %q: Open: %v", steps[i], err)
					}
					r, err := j.Append("roll", t0, body{N: 41})
					j.Close()
					if err != nil || r.Seq != 41 {
						t.Errorf("a crash after %q: the next record is seq %d (%v), want 41", steps[i], r.Seq, err)
					}
				}
				// Finish the repair as a technician would, again.
				if _, err := Repair(snap2, t0.Add(time.Minute)); err != nil {
					t.Fatalf("after %q: a second repair: %v", steps[i], err)
				}
				if rep, err := Check(snap2); err != nil || rep.Damaged() || rep.FirstSeq != 1 || rep.LastSeq != 40 || rep.Readable != 40 {
					t.Errorf("after %q and a second repair: %+v, %v", steps[i], rep, err)
				}
			}
		})
	}
}

// copyTopFiles copies the regular files directly in src (the segments,
// journal.id, LOCK) to dst.
func copyTopFiles(t *testing.T, src, dst string) {
	t.Helper()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o640); err != nil {
			t.Fatal(err)
		}
	}
}

// TestOpenRefusesDamagedLastRecord: the newest record, synced (so perhaps
// published), damaged on disk in its last bytes. Its frame is whole in
// length and fails its checksum: not a write torn by a crash, which ends
// the file short of the length its header gives. Until review22j Open cut
// it as a torn tail and the next record got its seq and id, which a
// consumer that had the damaged one drops as a re-delivery. Open refuses
// (ErrCorrupt), Check reports the record lost, and Repair writes its
// journal_damaged event, so the next record is seq 7.
func TestOpenRefusesDamagedLastRecord(t *testing.T) {
	dir := t.TempDir()
	orig := markedJournal(t, dir, 6) // one segment
	p, b, _ := segmentHolding(t, dir, "rec-06")
	b[len(b)-3] ^= 0x20
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	if j, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			t.Errorf("Open cut the damaged newest record: next seq %d, want ErrCorrupt", j.NextSeq())
			j.Close()
		}
		t.Fatalf("Open: %v, want ErrCorrupt", err)
	}
	if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
		t.Fatal("Open refused but changed the segment")
	}
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Damaged() || len(rep.Damage) != 1 || rep.Damage[0].FirstSeq != 6 || rep.Damage[0].LastSeq != 6 {
		t.Fatalf("Check: %+v, want seq 6..6 lost", rep)
	}
	rr, err := Repair(dir, t0)
	if err != nil || rr.Replaced != 1 {
		t.Fatalf("Repair: %+v %v, want one record replaced", rr, err)
	}
	j := mustOpen(t, dir, Options{})
	got := readAll(t, j, 1)
	if len(got) != 6 || got[5].ID != orig[5].ID || got[5].Kind != "event" || !bytes.Contains(got[5].Body, []byte(DamagedEvent)) || j.NextSeq() != 7 {
		t.Errorf("after Repair: %d records, next seq %d; want 6 (the 6th its %s event), 7", len(got), j.NextSeq(), DamagedEvent)
	}
}

// TestCheckReportsSegmentCutShort: a segment before the newest that ends
// at a frame boundary short of the next segment's first seq (cut by hand,
// or a file system that lost its end) has no damaged byte, but records
// are gone: a reader passes from its last record to the next segment's
// first without a word. Check reports the seqs missing (until review22j
// it said OK), and Repair writes a journal_damaged event for each.
func TestCheckReportsSegmentCutShort(t *testing.T) {
	dir := t.TempDir()
	orig := markedJournal(t, dir, 40)
	p, b, at := segmentHolding(t, dir, "rec-05")
	if mustSeg(t, dir, "rec-06") != p {
		t.Fatal("rec-05 and rec-06 are not in one segment; the test's layout changed")
	}
	if err := os.WriteFile(p, b[:frameStart(t, b, at)], 0o640); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Damaged() || len(rep.Damage) != 1 || rep.Damage[0].FirstSeq != 5 || rep.Damage[0].LastSeq < 6 {
		t.Fatalf("Check: %+v, want seq 5 on lost", rep)
	}
	lost := rep.Damage[0].Records()
	rr, err := Repair(dir, t0)
	if err != nil || rr.Replaced != lost {
		t.Fatalf("Repair: %+v %v, want %d records replaced", rr, err, lost)
	}
	j := mustOpen(t, dir, Options{})
	got := readAll(t, j, 1)
	if len(got) != 40 || j.NextSeq() != 41 {
		t.Fatalf("after Repair: %d records, next seq %d; want 40, 41", len(got), j.NextSeq())
	}
	for i, r := range got {
		damaged := r.Seq >= 5 && r.Seq < 5+lost
		if r.ID != orig[i].ID || damaged != (r.Kind == "event" && bytes.Contains(r.Body, []byte(DamagedEvent))) {
			t.Errorf("record %d: %s %s %s", i, r.ID, r.Kind, r.Body)
		}
	}
}

// TestRepairDamagedJournalID: journal.id damaged on disk. Open refuses
// with ErrCorrupt (the daemon's status 65: every start would meet it),
// Check reports it (until review22j it said OK and exited 0 while the
// daemon could not start, and Repair refused too), and Repair writes it
// again from the id every record carries, keeping the damaged file aside;
// the journal then opens with the ids it had.
func TestRepairDamagedJournalID(t *testing.T) {
	dir := t.TempDir()
	orig := markedJournal(t, dir, 12)
	idPath := filepath.Join(dir, "journal.id")
	if err := os.WriteFile(idPath, []byte("9f2c4e1a7b3dXc60\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open with a damaged journal.id: %v, want ErrCorrupt", err)
	}
	rep, err := Check(dir)
	if err != nil || !rep.Damaged() || rep.BadID == "" {
		t.Fatalf("Check: %+v %v, want journal.id reported damaged", rep, err)
	}
	rr, err := Repair(dir, t0)
	if err != nil {
		t.Fatalf("Repair: %v", err)
	}
	if kept, err := os.ReadFile(filepath.Join(dir, rr.Aside, "journal.id")); err != nil || string(kept) != "9f2c4e1a7b3dXc60\n" {
		t.Errorf("the damaged journal.id is not kept aside: %q %v", kept, err)
	}
	j := mustOpen(t, dir, Options{})
	if j.Epoch() != strings.SplitN(orig[0].ID, "-", 2)[0] {
		t.Fatalf("epoch after Repair %s, want the records' %s", j.Epoch(), orig[0].ID)
	}
	r, err := j.Append("roll", t0, body{N: 13})
	if err != nil || r.ID != j.Epoch()+"-13" {
		t.Errorf("next record %+v %v, want id %s-13", r, err, j.Epoch())
	}
}

// TestReaderStopsAtSegmentCutShort: the publisher's reader and ReadDir
// stop with ErrCorrupt where a segment ends short of the next one's first
// seq, as they do on a damaged record (until review22j they went on to
// the next segment, and the records between were never published nor
// reported lost).
func TestReaderStopsAtSegmentCutShort(t *testing.T) {
	dir := t.TempDir()
	markedJournal(t, dir, 40)
	p, b, at := segmentHolding(t, dir, "rec-05")
	if mustSeg(t, dir, "rec-06") != p {
		t.Fatal("rec-05 and rec-06 are not in one segment; the test's layout changed")
	}
	if err := os.WriteFile(p, b[:frameStart(t, b, at)], 0o640); err != nil {
		t.Fatal(err)
	}
	j := mustOpen(t, dir, Options{})
	r := j.Reader(1)
	defer r.Close()
	var last uint64
	var err error
	for {
		var rec Record
		if rec, err = r.Next(); err != nil {
			break
		}
		last = rec.Seq
	}
	if !errors.Is(err, ErrCorrupt) || last != 4 {
		t.Errorf("reader: last seq %d, then %v; want 4, then ErrCorrupt", last, err)
	}
	if err := ReadDir(dir, func(Record) error { return nil }); !errors.Is(err, ErrCorrupt) {
		t.Errorf("ReadDir: %v, want ErrCorrupt", err)
	}
}

// repairedRecords repairs the journal in dir and returns every record
// the repaired journal opens with, from seq 1.
func repairedRecords(t *testing.T, dir string) []Record {
	t.Helper()
	if _, err := Repair(dir, t0); err != nil {
		t.Fatalf("Repair: %v", err)
	}
	j, err := Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open after Repair: %v", err)
	}
	defer j.Close()
	return readAll(t, j, 1)
}
