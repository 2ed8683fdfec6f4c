package mqtt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/dicewatch/dicewatch/journal/journaltest"
)

// failOpenOnce makes the nonce file's next opening for appending fail.
func failOpenOnce(t *testing.T) {
	t.Helper()
	orig := openAppend
	t.Cleanup(func() { openAppend = orig })
	openAppend = func(path string) (*os.File, error) {
		openAppend = orig
		return nil, errors.New("test: open refused")
	}
}

// TestNonceStoreCompactionReopenFails: a compaction whose new file is in
// place but cannot be opened must not leave the store appending to the old
// file, which is no longer at the path: a nonce accepted after it would be
// lost at a restart, and its command could be replayed. Before, the store
// kept writing to the old (unlinked) file.
func TestNonceStoreCompactionReopenFails(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	s, err := OpenNonceStore(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.compactAt = 3
	for i := range 3 {
		if _, err := s.Add("box-1", fmt.Sprintf("nonce-%02d", i), now.Add(time.Second), now); err != nil {
			t.Fatal(err)
		}
	}
	// The next Add compacts (the three have expired by then, so the one
	// after it does not compact again); its reopening fails.
	failOpenOnce(t)
	later := now.Add(time.Minute)
	if fresh, err := s.Add("box-1", "nonce-03", later.Add(time.Hour), later); !fresh || err != nil {
		t.Fatalf("the compacting add: fresh %v, err %v", fresh, err)
	}
	if fresh, err := s.Add("box-1", "nonce-04", later.Add(time.Hour), later); !fresh || err != nil {
		t.Fatalf("the add after the failed reopening: fresh %v, err %v", fresh, err)
	}
	got := nonceKeys(t, dir)
	for i := 3; i < 5; i++ {
		if k := fmt.Sprintf("box-1 nonce-%02d", i); !got[k] {
			t.Errorf("%s accepted but not in the reopened store: %v", k, got)
		}
	}
}

// TestNonceStoreOpenRewriteReopenFails: at a start, a rewrite whose new
// file is in place but cannot be opened falls back to appending; it must
// cut the new file after its own last line, not the old file's (the old
// one, with expired lines, was longer: cutting "after" its end padded the
// new file with zeros, and the next nonce ran into them).
func TestNonceStoreOpenRewriteReopenFails(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	old := fmt.Sprintf("%d box-1 expired-aaaaaaaaaaaaaaaaaaaaaaaa\n%d box-1 expired-bbbbbbbbbbbbbbbbbbbbbbbb\n%d box-1 live-cccccccccccccccc\n",
		now.Add(-time.Hour).UnixNano(), now.Add(-time.Hour).UnixNano(), now.Add(time.Hour).UnixNano())
	if err := os.WriteFile(filepath.Join(dir, "nonces"), []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	failOpenOnce(t)
	s, err := OpenNonceStore(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	if fresh, err := s.Add("box-1", "after-the-start", now.Add(time.Hour), now); !fresh || err != nil {
		t.Fatalf("add: fresh %v, err %v", fresh, err)
	}
	s.Close()
	b, err := os.ReadFile(filepath.Join(dir, "nonces"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range b {
		if c == 0 {
			t.Fatalf("zeros in the nonce file: %q", b)
		}
	}
	got := nonceKeys(t, dir)
	if !got["box-1 live-cccccccccccccccc"] || !got["box-1 after-the-start"] || len(got) != 2 {
		t.Errorf("reopened store: %v, want the live nonce and the one after the start", got)
	}
}

// TestNonceStoreReserveAfterRestart: a store started on a full disk (its
// file clean, or with a torn line cut off) still has the whole reserve to
// write into: cutting the file after its last whole line frees the room
// the last run reserved past its end (on tmpfs even a cut to the same
// size does), and the start reserves it again before anything else can
// take it. The disk is filled again once the store is open (the journal
// and the clips write on): only the room reserved is left to it. Without
// that second filling the freed room was free for anyone and the test
// passed with the start's reserve taken out.
func TestNonceStoreReserveAfterRestart(t *testing.T) {
	for _, torn := range []bool{false, true} {
		t.Run(fmt.Sprintf("torn=%v", torn), func(t *testing.T) {
			n, bytes := keptAfterStart(t, fiveThenFullDisk(t, torn))
			t.Logf("%d nonces (%d bytes) kept after the start on the full disk", n, bytes)
			if bytes < nonceReserve {
				t.Errorf("%d bytes of nonces kept after a start on a full disk, want the reserve's %d", bytes, nonceReserve)
			}
		})
	}
}

// TestNonceStoreReservePartUsedAtRestart: a store that wrote part of its
// reserve on a full disk, restarted with the disk still full, keeps the
// rest of it. The start's cut frees what was left of the reserve; asking
// for the whole reserve again then fails (tmpfs allocates all of it or
// nothing), and the store kept only the room in its last page: some 30
// nonces of the 500 or so left.
func TestNonceStoreReservePartUsedAtRestart(t *testing.T) {
	for _, used := range []int{100, 500} {
		t.Run(fmt.Sprintf("used=%d", used), func(t *testing.T) {
			dir, s := openOnFullDisk(t)
			now := nonceNow
			usedBytes := 0
			for i := range used {
				nonce := fmt.Sprintf("nonce%030d", i)
				if _, err := s.Add("box-1", nonce, now.Add(time.Hour), now); err != nil {
					t.Fatalf("nonce %d on the full disk: %v", i, err)
				}
				usedBytes += len(fmt.Sprintf("%d box-1 %s\n", now.Add(time.Hour).UnixNano(), nonce))
			}
			s.Close()
			n, bytes := keptAfterStart(t, dir)
			t.Logf("%d bytes of the reserve used before the restart; %d nonces (%d bytes) kept after it", usedBytes, n, bytes)
			// The rest of the reserve, less a page for the search's
			// granularity.
			if want := nonceReserve - usedBytes - 4096; bytes < want {
				t.Errorf("%d bytes of nonces kept after the restart, want at least %d (the reserve's %d less the %d used, less a page)", bytes, want, nonceReserve, usedBytes)
			}
		})
	}
}

// keptAfterStart starts a nonce store in dir (its disk full), fills the
// disk again as the journal and the clips would, and adds nonces until
// one is refused: how many it kept, and their bytes in the file.
func keptAfterStart(t *testing.T, dir string) (n, bytes int) {
	t.Helper()
	now := nonceNow
	s, err := OpenNonceStore(dir, now)
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	defer s.Close()
	if err := journaltest.Fill(filepath.Join(dir, "filler-after-start")); err != nil {
		t.Fatal(err)
	}
	for ; n < 5000; n++ {
		nonce := fmt.Sprintf("after%030d", n)
		if _, err := s.Add("box-1", nonce, now.Add(time.Hour), now); err != nil {
			break
		}
		bytes += len(fmt.Sprintf("%d box-1 %s\n", now.Add(time.Hour).UnixNano(), nonce))
	}
	return n, bytes
}
