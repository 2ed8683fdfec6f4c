package rules

import (
	"strings"
	"testing"
)

func TestInventory(t *testing.T) {
	ev := func(kind string, n int) InventoryEvent { return InventoryEvent{Kind: kind, N: n} }
	tests := []struct {
		rule   string
		events []InventoryEvent
		want   Inventory
	}{
		{"3.3: the shooter selects two, the rest return to the bowl",
			[]InventoryEvent{ev(EvSelect, 0)}, Inventory{Set: 1, Size: 5, Shooter: 2, Bowl: 3}},
		{"3.4.1: a die off the table awaits retrieval",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 1)}, Inventory{Set: 1, Size: 5, Shooter: 1, Bowl: 3, OffTable: 1}},
		{"3.4.2: the shooter selects a new die from the remaining dice",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 1), ev(EvTakeFromBowl, 1)}, Inventory{Set: 1, Size: 5, Shooter: 2, Bowl: 2, OffTable: 1}},
		{"3.5, 3.5.1: found, checked, returned to the shooter who asked for the original",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 1), ev(EvFound, 1), ev(EvReturnShooter, 1)}, Inventory{Set: 1, Size: 5, Shooter: 2, Bowl: 3}},
		{"3.5.2: found and checked, otherwise back in the bowl",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 1), ev(EvTakeFromBowl, 1), ev(EvFound, 1), ev(EvReturnBowl, 1)}, Inventory{Set: 1, Size: 5, Shooter: 2, Bowl: 3}},
		{"3.6: two dice lost: a new set waits, the shooter goes on with the old set",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 2), ev(EvLost, 2), ev(EvTakeFromBowl, 2)}, Inventory{Set: 1, Size: 5, Shooter: 2, Bowl: 1, Lost: 2, NewSetWaiting: 5}},
		{"3.6: when the dice pass the old set leaves and the new set is in play",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 2), ev(EvLost, 2), ev(EvTakeFromBowl, 2), ev(EvPass, 0)}, Inventory{Set: 2, Size: 5, Bowl: 5}},
		{"3.6: one lost die alone does not change the set",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 1), ev(EvLost, 1), ev(EvTakeFromBowl, 1), ev(EvPass, 0)}, Inventory{Set: 1, Size: 5, Bowl: 4, Lost: 1}},
		{"3.5: a lost die found later is checked by the boxperson",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvOffTable, 1), ev(EvLost, 1), ev(EvFound, 1)}, Inventory{Set: 1, Size: 5, Shooter: 1, Bowl: 3, Checking: 1}},
		{"3.7: passing the dice returns the shooter's pair to the bowl",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvPass, 0)}, Inventory{Set: 1, Size: 5, Bowl: 5}},
		{"a routine new set",
			[]InventoryEvent{ev(EvSelect, 0), ev(EvNewSet, 6)}, Inventory{Set: 2, Size: 6, Bowl: 6}},
	}
	for _, tc := range tests {
		t.Run(tc.rule, func(t *testing.T) {
			inv, err := NewInventory(1, 5)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range tc.events {
				if inv, err = inv.Apply(e); err != nil {
					t.Fatalf("%+v: %v", e, err)
				}
				if inv.Total() != inv.Size {
					t.Fatalf("after %+v: %d dice accounted for, set has %d: %+v", e, inv.Total(), inv.Size, inv)
				}
			}
			if inv != tc.want {
				t.Errorf("got %+v, want %+v", inv, tc.want)
			}
		})
	}
}

func TestInventoryRejects(t *testing.T) {
	if _, err := NewInventory(1, 4); err == nil || !strings.Contains(err.Error(), "20:18:33:08") {
		t.Errorf("a set of four dice must be refused: %v", err)
	}
	fresh, _ := NewInventory(1, 5)
	held, _ := fresh.Apply(InventoryEvent{Kind: EvSelect})
	tests := []struct {
		name string
		from Inventory
		ev   InventoryEvent
	}{
		{"select twice", held, InventoryEvent{Kind: EvSelect}},
		{"select from an empty bowl", Inventory{Set: 1, Size: 5, Bowl: 1, Lost: 4}, InventoryEvent{Kind: EvSelect}},
		{"more off the table than thrown", held, InventoryEvent{Kind: EvOffTable, N: 3}},
		{"a third die in hand", held, InventoryEvent{Kind: EvTakeFromBowl, N: 1}},
		{"take from an empty bowl", Inventory{Set: 1, Size: 5, Shooter: 0, Bowl: 1, OffTable: 2, Lost: 2}, InventoryEvent{Kind: EvTakeFromBowl, N: 2}},
		{"found with none missing", held, InventoryEvent{Kind: EvFound, N: 1}},
		{"return what the boxperson lacks", held, InventoryEvent{Kind: EvReturnShooter, N: 1}},
		{"return to a full hand", Inventory{Set: 1, Size: 5, Shooter: 2, Bowl: 2, Checking: 1}, InventoryEvent{Kind: EvReturnShooter, N: 1}},
		{"return to bowl what the boxperson lacks", held, InventoryEvent{Kind: EvReturnBowl, N: 1}},
		{"lose what is not off the table", held, InventoryEvent{Kind: EvLost, N: 1}},
		{"new set too small", held, InventoryEvent{Kind: EvNewSet, N: 3}},
		{"negative count", held, InventoryEvent{Kind: EvOffTable, N: -1}},
		{"zero count", held, InventoryEvent{Kind: EvOffTable}},
		{"unknown event", held, InventoryEvent{Kind: "juggle", N: 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.from.Apply(tc.ev)
			if err == nil || got != tc.from {
				t.Errorf("got %+v, %v; want the inventory unchanged and an error", got, err)
			}
		})
	}
}

func TestCheckBowl(t *testing.T) {
	inv, _ := NewInventory(3, 5)
	inv, _ = inv.Apply(InventoryEvent{Kind: EvSelect})
	if d := inv.CheckBowl(3); d != nil {
		t.Errorf("3.3: three in the bowl is expected, got %+v", d)
	}
	d := inv.CheckBowl(2)
	if d == nil || *d != (BowlDiscrepancy{Set: 3, Expected: 3, Counted: 2}) {
		t.Errorf("a missing die in the bowl must be an event, got %+v", d)
	}
}
