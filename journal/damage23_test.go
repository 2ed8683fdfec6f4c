package journal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// TestOpenRefusesDamagedLengthOfLastRecord: the newest record written
// whole and synced (so perhaps published), then its length header damaged
// on disk: the length no longer fits the frame, so the frame is not whole
// in length (wholeFrame) and until ops23 Open cut it as a torn write and
// gave its seq and id to the next record. The bytes after the header hold
// the record's whole JSON, which a torn write never does: Open refuses
// (ErrCorrupt) and changes nothing, Check reports seq 6 lost (not a torn
// tail), and Repair writes its journal_damaged event with its id, keeping
// the bytes aside. A write torn by a crash is still cut.
func TestOpenRefusesDamagedLengthOfLastRecord(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(b []byte, start int) []byte
		torn   bool
	}{
		{"length past the end", func(b []byte, s int) []byte { b[s+2] ^= 0x01; return b }, false},
		{"length one short", func(b []byte, s int) []byte {
			binary.LittleEndian.PutUint32(b[s:], binary.LittleEndian.Uint32(b[s:])-1)
			return b
		}, false},
		{"length over the limit", func(b []byte, s int) []byte { b[s+3] = 0x7f; return b }, false},
		{"length damaged, then a torn write", func(b []byte, s int) []byte {
			b[s+2] ^= 0x01
			return append(b, b[s:s+20]...)
		}, false},
		// Not damage: a write cut by a crash, 5 bytes short.
		{"torn", func(b []byte, s int) []byte { return b[:len(b)-5] }, true},
		{"torn in the header", func(b []byte, s int) []byte { return b[:s+3] }, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			orig := markedJournal(t, dir, 6) // one segment
			p, b, at := segmentHolding(t, dir, "rec-06")
			b = c.mutate(b, frameStart(t, b, at))
			if err := os.WriteFile(p, b, 0o640); err != nil {
				t.Fatal(err)
			}
			rep, err := Check(dir)
			if err != nil || len(rep.Damage) != 1 {
				t.Fatalf("Check: %+v %v, want one damage", rep, err)
			}
			if c.torn {
				if rep.Damaged() || !rep.Damage[0].Tail {
					t.Errorf("Check: %+v, want a torn tail", rep)
				}
				j := mustOpen(t, dir, Options{})
				defer j.Close()
				if j.NextSeq() != 6 {
					t.Errorf("Open after a torn write: next seq %d, want 6 (the torn record cut)", j.NextSeq())
				}
				return
			}
			if !rep.Damaged() || rep.Damage[0].Tail || rep.Damage[0].FirstSeq != 6 || rep.Damage[0].LastSeq != 6 {
				t.Errorf("Check: %+v, want seq 6..6 lost, not a torn tail", rep)
			}
			j, err := Open(dir, Options{})
			if !errors.Is(err, ErrCorrupt) {
				if err == nil {
					t.Errorf("Open cut the record with the damaged length: next seq %d, want ErrCorrupt", j.NextSeq())
					j.Close()
				}
				t.Fatalf("Open: %v, want ErrCorrupt", err)
			}
			if now, _ := os.ReadFile(p); !bytes.Equal(now, b) {
				t.Fatal("Open refused but changed the segment")
			}
			rr, err := Repair(dir, t0)
			if err != nil || rr.Replaced != 1 {
				t.Fatalf("Repair: %+v %v, want one record replaced", rr, err)
			}
			if kept, err := os.ReadFile(filepath.Join(dir, rr.Aside, filepath.Base(p))); err != nil || !bytes.Equal(kept, b) {
				t.Errorf("the damaged segment is not kept aside byte for byte (%v)", err)
			}
			j = mustOpen(t, dir, Options{})
			defer j.Close()
			got := readAll(t, j, 1)
			if len(got) != 6 || got[5].ID != orig[5].ID || !bytes.Contains(got[5].Body, []byte(DamagedEvent)) || j.NextSeq() != 7 {
				t.Errorf("after Repair: %d records, next seq %d; want 6 (the 6th its %s event, id %s), 7", len(got), j.NextSeq(), DamagedEvent, orig[5].ID)
			}
		})
	}
}

// TestRepairAgainAfterCrashKeepsOriginal: a repair cut by a crash after it
// linked the damaged segment aside, run again in the same second (so to
// the same damaged/<time> folder, where the link is already). Until
// ops23 os.Link failed there and the repair wrote its copy over the
// link: the same file as the segment, cut to nothing and written again,
// so a crash in between lost the segment's only copy. The second run
// must finish without touching the kept file.
func TestRepairAgainAfterCrashKeepsOriginal(t *testing.T) {
	dir := t.TempDir()
	markedJournal(t, dir, 40)
	if err := journaltest.Damage(dir, "rec-05"); err != nil {
		t.Fatal(err)
	}
	p, damaged, _ := segmentHolding(t, dir, "rec-06")
	type crash struct{}
	old := repairStep
	repairStep = func(step, seg string) {
		if step == "original kept" {
			panic(crash{})
		}
	}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(crash); !ok {
					panic(r)
				}
			}
		}()
		_, err := Repair(dir, t0)
		t.Fatalf("the repair did not reach the step the test crashes it at: %v", err)
	}()
	repairStep = old
	kept := filepath.Join(dir, DamagedDir, t0.Format("20060102T150405Z"), filepath.Base(p))
	past := t0.Add(-time.Hour)
	if err := os.Chtimes(kept, past, past); err != nil {
		t.Fatalf("the crashed repair left no kept segment: %v", err)
	}
	rr, err := Repair(dir, t0)
	if err != nil || rr.Replaced != 1 {
		t.Fatalf("the repair run again: %+v %v, want one record replaced", rr, err)
	}
	info, err := os.Stat(kept)
	if err != nil {
		t.Fatal(err)
	}
	if !info.ModTime().Equal(past) {
		t.Errorf("the repair run again wrote the kept segment again (modified %v): its only copy was cut to nothing meanwhile", info.ModTime())
	}
	if b, _ := os.ReadFile(kept); !bytes.Equal(b, damaged) {
		t.Error("the kept segment does not hold the damaged segment's bytes")
	}
	if rep, err := Check(dir); err != nil || rep.Damaged() || rep.Readable != 40 {
		t.Errorf("after the repair: %+v %v", rep, err)
	}

	// A different file at the kept name is refused, not written over.
	dir2 := t.TempDir()
	markedJournal(t, dir2, 40)
	if err := journaltest.Damage(dir2, "rec-05"); err != nil {
		t.Fatal(err)
	}
	kept2 := filepath.Join(dir2, DamagedDir, t0.Format("20060102T150405Z"), filepath.Base(p))
	if err := os.MkdirAll(filepath.Dir(kept2), 0o750); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(kept2, []byte("something else"), 0o640); err != nil {
		t.Fatal(err)
	}
	if _, err := Repair(dir2, t0); err == nil || !strings.Contains(err.Error(), "other bytes") {
		t.Errorf("Repair over another file at the kept name: %v, want a refusal", err)
	}
	if b, _ := os.ReadFile(kept2); string(b) != "something else" {
		t.Error("Repair wrote over another file at the kept name")
	}
	if rep, err := Check(dir2); err != nil || !rep.Damaged() {
		t.Errorf("the refused repair changed the journal: %+v %v", rep, err)
	}
}

// TestMissingJournalID: journal.id removed while the journal holds
// records. Until ops23 Check said OK and Open made a new id, so new
// records took ids of another journal id than the records before them,
// and the publisher, whose cursor names the journal id, no longer knew
// what the broker had acknowledged. Open refuses (ErrCorrupt), Check
// reports it, and Repair writes it again from the records' ids; the
// journal then goes on with the ids it had. A journal with no record
// still gets a new id.
func TestMissingJournalID(t *testing.T) {
	dir := t.TempDir()
	orig := markedJournal(t, dir, 12)
	epoch := strings.SplitN(orig[0].ID, "-", 2)[0]
	idPath := filepath.Join(dir, "journal.id")
	if err := os.Remove(idPath); err != nil {
		t.Fatal(err)
	}
	if j, err := Open(dir, Options{}); !errors.Is(err, ErrCorrupt) {
		if err == nil {
			t.Errorf("Open made a new journal id %s for a journal of %s's records", j.Epoch(), epoch)
			j.Close()
		}
		t.Fatalf("Open without journal.id: %v, want ErrCorrupt", err)
	}
	if _, err := os.Stat(idPath); !errors.Is(err, os.ErrNotExist) {
		t.Error("Open refused but wrote journal.id")
	}
	rep, err := Check(dir)
	if err != nil || !rep.Damaged() || !strings.Contains(rep.MissingID, epoch) {
		t.Fatalf("Check: %+v %v, want journal.id reported missing, naming %s", rep, err, epoch)
	}
	rr, err := Repair(dir, t0)
	if err != nil || !rr.IDWritten || rr.Aside != "" {
		t.Fatalf("Repair: %+v %v, want journal.id written, nothing kept aside", rr, err)
	}
	if rep, err := Check(dir); err != nil || rep.Damaged() {
		t.Errorf("Check after Repair: %+v %v", rep, err)
	}
	j := mustOpen(t, dir, Options{})
	r, err := j.Append("roll", t0, body{N: 13})
	j.Close()
	if err != nil || r.ID != epoch+"-13" {
		t.Errorf("next record %+v %v, want id %s-13", r, err, epoch)
	}

	// No record: a new journal id, as before.
	empty := t.TempDir()
	j = mustOpen(t, empty, Options{})
	j.Close()
	if err := os.Remove(filepath.Join(empty, "journal.id")); err != nil {
		t.Fatal(err)
	}
	if rep, err := Check(empty); err != nil || rep.Damaged() {
		t.Errorf("Check of a journal with no record and no journal.id: %+v %v", rep, err)
	}
	j = mustOpen(t, empty, Options{})
	j.Close()
}

// TestRepairTakesTheLostRecordsJournalID: a journal whose journal.id was
// lost and made anew by an earlier version (records 1..12 under one
// journal id, 13..17 under another), then damaged in a record of the
// first run. The journal_damaged event written in its place takes the id
// the lost record had (the first journal id, from the records around
// it), so that a consumer that had it drops it as a re-delivery; until
// ops23 it took journal.id's, an id no consumer had for that seq.
func TestRepairTakesTheLostRecordsJournalID(t *testing.T) {
	dir := t.TempDir()
	orig := markedJournal(t, dir, 12)
	if err := os.WriteFile(filepath.Join(dir, "journal.id"), []byte("0123456789abcdef\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	j := mustOpen(t, dir, Options{SegmentBytes: 1024})
	later := appendN(t, j, 5)
	j.Close()
	if !strings.HasPrefix(later[0].ID, "0123456789abcdef-") || later[0].Seq != 13 {
		t.Fatalf("setup: record %+v", later[0])
	}
	if err := journaltest.Damage(dir, "rec-05"); err != nil {
		t.Fatal(err)
	}
	if _, err := Repair(dir, t0); err != nil {
		t.Fatal(err)
	}
	j = mustOpen(t, dir, Options{})
	defer j.Close()
	got := readAll(t, j, 1)
	if len(got) != 17 {
		t.Fatalf("%d records after Repair, want 17", len(got))
	}
	if got[4].ID != orig[4].ID || !bytes.Contains(got[4].Body, []byte(DamagedEvent)) {
		t.Errorf("seq 5 after Repair: %s %s, want the %s event with the lost record's id %s", got[4].ID, got[4].Body, DamagedEvent, orig[4].ID)
	}
}
