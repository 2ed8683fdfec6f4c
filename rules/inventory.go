package rules

import "fmt"

// MinDiceSet is the smallest dice set a craps table may use: "the complete
// set of five or more dice" (20:18:33:08).
const MinDiceSet = 5

// Inventory tracks where every die of the craps dice set is (3.2-3.6). It
// counts dice; it does not tell them apart.
type Inventory struct {
	// Set numbers the dice set in use; a new set (3.6) increments it.
	Set int `json:"set"`
	// Size is how many dice the set had when placed at the table.
	Size int `json:"size"`
	// Shooter is the dice the shooter holds (two after selecting, 3.3).
	Shooter int `json:"shooter"`
	// Bowl is the dice in the bowl in front of the stickperson (3.3).
	Bowl int `json:"bowl"`
	// OffTable is dice gone off the table, awaiting retrieval (3.4.1).
	OffTable int `json:"off_table"`
	// Checking is found dice with the boxperson to be checked (3.5).
	Checking int `json:"checking"`
	// Lost is dice of this set given up as lost.
	Lost int `json:"lost"`
	// NewSetWaiting is set when two dice were lost (3.6): a new set of this
	// size is at the table, and the shooter continues with the rest of the
	// old set until the dice pass.
	NewSetWaiting int `json:"new_set_waiting,omitempty"`
}

// InventoryEvent kinds.
const (
	EvSelect        = "select"         // 3.3: the shooter selects two dice; the rest stay in the bowl
	EvOffTable      = "off_table"      // 3.4: N dice went off the table
	EvTakeFromBowl  = "take_from_bowl" // 3.4.2: the shooter selects N new dice from the remaining dice
	EvFound         = "found"          // 3.5: N missing dice are found and go to the boxperson
	EvReturnShooter = "return_shooter" // 3.5.1: checked dice returned to the shooter at their request
	EvReturnBowl    = "return_bowl"    // 3.5.2: checked dice placed back in the bowl
	EvLost          = "lost"           // N dice off the table are given up as lost (two lost: 3.6)
	EvNewSet        = "new_set"        // a new set of N dice replaces the old (3.6 or a routine change)
	EvPass          = "pass"           // the dice pass to a new shooter: the shooter's dice go to the bowl
)

// InventoryEvent is one change to the dice set.
type InventoryEvent struct {
	Kind string `json:"kind"`
	N    int    `json:"n"`
}

// NewInventory is a fresh set of size dice in the bowl, offered as in 3.2.
func NewInventory(set, size int) (Inventory, error) {
	if size < MinDiceSet {
		return Inventory{}, fmt.Errorf("rules: dice set: %d dice is fewer than a complete set of %d (20:18:33:08)", size, MinDiceSet)
	}
	return Inventory{Set: set, Size: size, Bowl: size}, nil
}

// Total is every die of the set accounted for at the table, lost ones too.
func (inv Inventory) Total() int {
	return inv.Shooter + inv.Bowl + inv.OffTable + inv.Checking + inv.Lost
}

// Apply records one event. It is pure: it returns the new inventory, or
// the old one and an error when the event cannot happen.
func (inv Inventory) Apply(ev InventoryEvent) (Inventory, error) {
	n := ev.N
	bad := func(format string, a ...any) (Inventory, error) {
		return inv, fmt.Errorf("rules: dice set %d: %s: %s", inv.Set, ev.Kind, fmt.Sprintf(format, a...))
	}
	if n < 0 || (n == 0 && ev.Kind != EvSelect && ev.Kind != EvPass) {
		return bad("count %d must be positive", n)
	}
	next := inv
	switch ev.Kind {
	case EvSelect:
		if inv.Shooter != 0 {
			return bad("the shooter already holds %d dice", inv.Shooter)
		}
		if inv.Bowl < 2 {
			return bad("only %d dice in the bowl", inv.Bowl)
		}
		next.Bowl -= 2
		next.Shooter = 2
	case EvOffTable:
		if n > inv.Shooter {
			return bad("%d dice off the table but the shooter threw %d", n, inv.Shooter)
		}
		next.Shooter -= n
		next.OffTable += n
	case EvTakeFromBowl:
		if inv.Shooter+n > 2 {
			return bad("the shooter would hold %d dice", inv.Shooter+n)
		}
		if n > inv.Bowl {
			return bad("only %d dice in the bowl", inv.Bowl)
		}
		next.Bowl -= n
		next.Shooter += n
	case EvFound:
		if n > inv.OffTable+inv.Lost {
			return bad("%d found but only %d are missing", n, inv.OffTable+inv.Lost)
		}
		fromOff := min(n, inv.OffTable)
		next.OffTable -= fromOff
		next.Lost -= n - fromOff
		next.Checking += n
	case EvReturnShooter:
		if n > inv.Checking {
			return bad("only %d dice with the boxperson", inv.Checking)
		}
		if inv.Shooter+n > 2 {
			return bad("the shooter would hold %d dice", inv.Shooter+n)
		}
		next.Checking -= n
		next.Shooter += n
	case EvReturnBowl:
		if n > inv.Checking {
			return bad("only %d dice with the boxperson", inv.Checking)
		}
		next.Checking -= n
		next.Bowl += n
	case EvLost:
		if n > inv.OffTable {
			return bad("only %d dice off the table", inv.OffTable)
		}
		next.OffTable -= n
		next.Lost += n
		if next.Lost >= 2 && next.NewSetWaiting == 0 {
			// 3.6: a new set is placed at the table; this shooter goes on
			// with the rest of the old set.
			next.NewSetWaiting = inv.Size
		}
	case EvNewSet:
		if n < MinDiceSet {
			return bad("%d dice is fewer than a complete set of %d (20:18:33:08)", n, MinDiceSet)
		}
		next = Inventory{Set: inv.Set + 1, Size: n, Bowl: n}
	case EvPass:
		if inv.NewSetWaiting > 0 {
			// 3.6: the remaining dice of the old set leave the table
			// once its shooter is done.
			next = Inventory{Set: inv.Set + 1, Size: inv.NewSetWaiting, Bowl: inv.NewSetWaiting}
			break
		}
		next.Bowl += next.Shooter
		next.Shooter = 0
	default:
		return bad("unknown event")
	}
	return next, nil
}

// BowlDiscrepancy is an event: the camera counted a different number of
// dice in the bowl than the inventory expects.
type BowlDiscrepancy struct {
	Set      int `json:"set"`
	Expected int `json:"expected"`
	Counted  int `json:"counted"`
}

// CheckBowl compares the camera's bowl count with the inventory. It returns
// nil when they agree.
func (inv Inventory) CheckBowl(counted int) *BowlDiscrepancy {
	if counted == inv.Bowl {
		return nil
	}
	return &BowlDiscrepancy{Set: inv.Set, Expected: inv.Bowl, Counted: counted}
}
