package journal

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecovery damages the tail of a journal (truncation to a random length
// plus random bytes written over or after it) and checks that Open keeps a
// prefix of the original records intact, continues the seq without a gap,
// and that the recovered journal reopens unchanged; or, when whole records
// follow the damage (since session 21), that Open refuses with ErrCorrupt
// and changes nothing, and that after Repair it opens with every record
// as it was or a journal_damaged event in its place.
func FuzzRecovery(f *testing.F) {
	f.Add(uint16(0), []byte{}, false)
	f.Add(uint16(5), []byte{1, 2, 3}, false)
	f.Add(uint16(400), []byte{0xff, 0xff, 0xff, 0x7f}, true)
	f.Add(uint16(60), []byte("{\"seq\":3}"), true)
	f.Fuzz(func(t *testing.T, cut uint16, junk []byte, overwrite bool) {
		dir := t.TempDir()
		j, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var orig []Record
		for i := 0; i < 6; i++ {
			r, err := j.Append("roll", t0, body{N: i, Note: "x"})
			if err != nil {
				t.Fatal(err)
			}
			orig = append(orig, r)
		}
		j.Close()
		seg := filepath.Join(dir, segName(1))
		b, err := os.ReadFile(seg)
		if err != nil {
			t.Fatal(err)
		}
		keep := int(cut) % (len(b) + 1)
		if overwrite {
			copy(b[keep:], junk) // corrupt in place from keep on
		} else {
			b = append(b[:keep:keep], junk...) // cut at keep, then junk
		}
		if err := os.WriteFile(seg, b, 0o640); err != nil {
			t.Fatal(err)
		}
		j, err = Open(dir, Options{})
		if err != nil {
			refusedThenRepaired(t, dir, seg, b, orig, err)
			return
		}
		got := readAll(t, j, 1)
		if len(got) > len(orig) {
			t.Fatalf("recovered %d records from %d", len(got), len(orig))
		}
		for i, r := range got {
			if r.ID != orig[i].ID || string(r.Body) != string(orig[i].Body) {
				t.Fatalf("record %d changed: %+v", i, r)
			}
		}
		r, err := j.Append("roll", t0, body{N: 100})
		if err != nil {
			t.Fatal(err)
		}
		if r.Seq != uint64(len(got)+1) {
			t.Fatalf("next seq %d after %d records", r.Seq, len(got))
		}
		j.Close()
		j, err = Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		if n := len(readAll(t, j, 1)); n != len(got)+1 {
			t.Fatalf("reopen: %d records, want %d", n, len(got)+1)
		}
	})
}

// refusedThenRepaired checks an Open that refused a damaged newest
// segment (openErr): ErrCorrupt, the segment as it was, damage Check
// reports, and after Repair a journal that opens with each original
// record whole or a journal_damaged event with its seq and id.
func refusedThenRepaired(t *testing.T, dir, seg string, damaged []byte, orig []Record, openErr error) {
	t.Helper()
	if !errors.Is(openErr, ErrCorrupt) {
		t.Fatalf("Open after damage: %v", openErr)
	}
	if b, err := os.ReadFile(seg); err != nil || !bytes.Equal(b, damaged) {
		t.Fatalf("Open refused but changed the segment (%v)", err)
	}
	rep, err := Check(dir)
	if err != nil || !rep.Damaged() {
		t.Fatalf("Open refused on damage Check does not report: %+v, %v", rep, err)
	}
	got := repairedRecords(t, dir)
	if len(got) > len(orig) {
		t.Fatalf("recovered %d records from %d", len(got), len(orig))
	}
	for i, r := range got {
		if r.ID != orig[i].ID {
			t.Fatalf("record %d: id %s, want %s", i, r.ID, orig[i].ID)
		}
		if string(r.Body) != string(orig[i].Body) && !(r.Kind == "event" && bytes.Contains(r.Body, []byte(DamagedEvent))) {
			t.Fatalf("record %d changed: %+v", i, r)
		}
	}
}
