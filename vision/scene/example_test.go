package scene_test

import (
	"fmt"

	"github.com/dicewatch/dicewatch/vision/scene"
)

func ExampleNewSession() {
	s, err := scene.NewSession(scene.Config{Seed: 7, Throws: 4,
		Kinds: []scene.Kind{scene.KindValid, scene.KindOffTable, scene.KindInBowl, scene.KindStacked}})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	for _, tt := range s.Truth() {
		fmt.Println(tt.Throw, tt.Kind, tt.Expected.Verdict, tt.Expected.Reasons, tt.AtRestMS-tt.StartMS > 0)
	}
	// Output:
	// 0 valid valid [] true
	// 1 off_table no_roll [off_table] true
	// 2 in_bowl no_roll [in_bowl] true
	// 3 stacked no_roll [stacked] true
}

func ExampleParseKinds() {
	ks, err := scene.ParseKinds("valid,cocked,in_rail")
	fmt.Println(ks, err)
	_, err = scene.ParseKinds("valid,leaning")
	fmt.Println(err != nil)
	// Output:
	// [valid cocked in_rail] <nil>
	// true
}
