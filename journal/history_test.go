package journal

import (
	"bytes"
	"strings"
	"testing"
)

func TestLastGames(t *testing.T) {
	dir := t.TempDir()
	j := mustOpen(t, dir, Options{SegmentBytes: 400})
	add := func(kind string, body map[string]any) {
		t.Helper()
		if _, err := j.Append(kind, t0, body); err != nil {
			t.Fatal(err)
		}
	}
	add("roll", map[string]any{"verdict": "valid", "values": []int{1, 1}, "total": 2}) // anonymous run 1
	for g := 1; g <= 4; g++ {
		id := string(rune('a'+g-1)) + "-game"
		add("state", map[string]any{"game": id, "phase": "come_out"})
		add("roll", map[string]any{"game": id, "verdict": "valid", "values": []int{3, g}, "total": 3 + g})
		add("noroll", map[string]any{"game": id, "verdict": "no_roll", "reasons": []string{"cocked"}})
		add("event", map[string]any{"event": "command", "command": "noroll", "result": "accepted", "operator": "E1", "role": "boxperson", "game": id})
		add("event", map[string]any{"event": "camera_fault"}) // no game: not in any game
	}
	cases := []struct {
		n    int
		want []string
	}{
		{1, []string{"d-game"}},
		{3, []string{"b-game", "c-game", "d-game"}},
		{10, []string{"", "a-game", "b-game", "c-game", "d-game"}},
		{0, nil},
	}
	for _, c := range cases {
		games, err := LastGames(dir, c.n)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, g := range games {
			ids = append(ids, g.ID)
		}
		if strings.Join(ids, ",") != strings.Join(c.want, ",") {
			t.Errorf("last %d: %v, want %v", c.n, ids, c.want)
		}
	}
	games, _ := LastGames(dir, 1)
	if g := games[0]; len(g.Records) != 4 || g.Decisions() != 2 {
		t.Errorf("game d: %d records, %d decisions", len(g.Records), g.Decisions())
	}
	var out bytes.Buffer
	if err := WriteGames(&out, games); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"game d-game: 2 decisions, 4 records", "valid 3+4 = 7", "no_roll (cocked)", "command noroll accepted by E1 [boxperson]"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}
