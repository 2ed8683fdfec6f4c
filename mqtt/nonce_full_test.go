package mqtt

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// nonceKeys lists the pairs a reopened store holds.
func nonceKeys(t *testing.T, dir string) map[string]bool {
	t.Helper()
	s, err := OpenNonceStore(dir, time.Time{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	got := map[string]bool{}
	for k := range s.seen {
		got[k] = true
	}
	return got
}

// nonceNow is the clock the nonce store tests run at.
var nonceNow = time.Unix(1_800_000_000, 0)

// openOnFullDisk opens a nonce store on a 256k tmpfs and then fills the
// tmpfs: the store has only the room it keeps in reserve. It is closed
// when the test ends.
func openOnFullDisk(t *testing.T) (dir string, s *NonceStore) {
	t.Helper()
	dir = journaltest.SmallDisk(t, "256k")
	s, err := OpenNonceStore(dir, nonceNow)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := journaltest.Fill(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	return dir, s
}

// fiveThenFullDisk leaves in a 256k tmpfs the nonce file of a store that
// kept five nonces (nonce000...0 to nonce000...4) and was closed, its last
// line cut short if torn, and then fills the tmpfs: a restart on a full
// disk.
func fiveThenFullDisk(t *testing.T, torn bool) (dir string) {
	t.Helper()
	dir = journaltest.SmallDisk(t, "256k")
	s, err := OpenNonceStore(dir, nonceNow)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := s.Add("box-1", fmt.Sprintf("nonce%030d", i), nonceNow.Add(time.Hour), nonceNow); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if torn {
		appendTornNonce(t, dir)
	}
	if err := journaltest.Fill(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestNonceStoreFullDisk: with the state folder's disk full (a real
// tmpfs), commands still record their nonces durably (in the space the
// store keeps in reserve), a replay is still refused, and a reopened store
// has every nonce. Before, the first command on a full disk was rejected
// ("internal": the nonce could not be written), a line cut short by the
// full disk ran into the next one (that nonce forgotten at a restart), and
// a failed compaction left the store without a file, rejecting every
// later command even once the disk had room again.
func TestNonceStoreFullDisk(t *testing.T) {
	dir, s := openOnFullDisk(t)
	now := nonceNow
	s.compactAt = 50 // compaction (a new file) is tried on the full disk too
	const n = 300
	for i := range n {
		fresh, err := s.Add("box-1", fmt.Sprintf("nonce%030d", i), now.Add(time.Hour), now)
		if err != nil || !fresh {
			t.Fatalf("nonce %d on a full disk: fresh %v, err %v", i, fresh, err)
		}
	}
	if fresh, err := s.Add("box-1", fmt.Sprintf("nonce%030d", 7), now.Add(time.Hour), now); fresh || err != nil {
		t.Errorf("replay on a full disk: fresh %v, err %v", fresh, err)
	}
	got := nonceKeys(t, dir)
	for i := range n {
		if k := "box-1 " + fmt.Sprintf("nonce%030d", i); !got[k] {
			t.Errorf("nonce %d not in the reopened store", i)
		}
	}
	if len(got) != n {
		t.Errorf("reopened store holds %d pairs, want %d", len(got), n)
	}
	// Once the disk has room again, compaction and commands go on.
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if fresh, err := s.Add("box-1", "after-the-disk-freed-0001", now.Add(time.Hour), now); !fresh || err != nil {
		t.Errorf("after the disk freed: fresh %v, err %v", fresh, err)
	}
}

// TestNonceStoreReserveExhausted: past its reserve a nonce cannot be kept
// durably, so the command is refused (an error, so "internal"), and the
// line the full disk cut short is cut off: the next nonce written once
// there is room is not run into it.
func TestNonceStoreReserveExhausted(t *testing.T) {
	dir, s := openOnFullDisk(t)
	now := nonceNow
	var refused int
	for i := 0; i < 20000 && refused == 0; i++ {
		fresh, err := s.Add("box-1", fmt.Sprintf("nonce%030d", i), now.Add(time.Hour), now)
		if err != nil {
			refused = i
			if fresh {
				t.Errorf("nonce %d not kept but reported fresh", i)
			}
		}
	}
	if refused == 0 {
		t.Fatal("20000 nonces kept on a full 256k disk")
	}
	t.Logf("%d nonces kept on the full disk before one was refused", refused)
	if fresh, err := s.Add("box-1", fmt.Sprintf("nonce%030d", refused), now.Add(time.Hour), now); err == nil || fresh {
		t.Errorf("the refused nonce again: fresh %v, err %v (want refused again: it was never kept)", fresh, err)
	}
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if fresh, err := s.Add("box-1", "after-the-disk-freed-0001", now.Add(time.Hour), now); !fresh || err != nil {
		t.Fatalf("after the disk freed: fresh %v, err %v", fresh, err)
	}
	got := nonceKeys(t, dir)
	if len(got) != refused+1 || !got["box-1 after-the-disk-freed-0001"] {
		t.Errorf("reopened store holds %d pairs (want %d), the one after the disk freed: %v", len(got), refused+1, got["box-1 after-the-disk-freed-0001"])
	}
}

// TestNonceStoreOpenOnFullDisk: a daemon restarted with the state folder's
// disk full starts: the store cannot rewrite its file (a new file), so it
// appends to the old one, cut after its last whole line. Before, the
// start failed ("mqtt: nonce store: ... no space left on device").
func TestNonceStoreOpenOnFullDisk(t *testing.T) {
	dir := fiveThenFullDisk(t, true)
	now := nonceNow
	s, err := OpenNonceStore(dir, now)
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	if fresh, err := s.Add("box-1", "after-the-restart-0001", now.Add(time.Hour), now); !fresh || err != nil {
		t.Errorf("after a restart on a full disk: fresh %v, err %v", fresh, err)
	}
	if fresh, _ := s.Add("box-1", fmt.Sprintf("nonce%030d", 3), now.Add(time.Hour), now); fresh {
		t.Error("a nonce from before the restart accepted again")
	}
	s.Close()
	got := nonceKeys(t, dir)
	if len(got) != 6 || !got["box-1 after-the-restart-0001"] {
		t.Errorf("reopened store: %d pairs, want 6 with the one after the restart: %v", len(got), got)
	}
}

// TestNonceStoreTornTail: a power cut can leave the file's tail cut short
// or filled with zeros; the whole lines before it load, and the store
// writes on after them.
func TestNonceStoreTornTail(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	good := fmt.Sprintf("%d box-1 nonce-aaaaaaaaaaaaaaaa\n%d box-1 nonce-bbbbbbbbbbbbbbbb\n", now.Add(time.Hour).UnixNano(), now.Add(time.Hour).UnixNano())
	for _, c := range []struct{ name, tail string }{
		{"cut short", "18000036"},
		{"zero-filled", string(make([]byte, 4096))},
		{"zeros then cut", string(make([]byte, 100)) + "1800003600000000000 box"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "nonces"), []byte(good+c.tail), 0o640); err != nil {
				t.Fatal(err)
			}
			s, err := OpenNonceStore(dir, now)
			if err != nil {
				t.Fatal(err)
			}
			if fresh, err := s.Add("box-1", "nonce-cccccccccccccccc", now.Add(time.Hour), now); !fresh || err != nil {
				t.Fatalf("add: %v %v", fresh, err)
			}
			s.Close()
			got := nonceKeys(t, dir)
			for _, k := range []string{"aaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbb", "cccccccccccccccc"} {
				if !got["box-1 nonce-"+k] {
					t.Errorf("nonce-%s lost: %v", k, got)
				}
			}
		})
	}
}

// appendTornNonce ends the nonce file in dir with a line cut short, as a
// crash or a full disk leaves it.
func appendTornNonce(t *testing.T, dir string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "nonces"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString("1800003600000000000 box-1 nonce-torn"); err != nil {
		t.Fatal(err)
	}
}
