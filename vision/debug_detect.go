package vision

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log"
	"os"
)

var debugOn = false
var debugN int

func debugf(f string, a ...any) {
	if debugOn {
		log.Printf(f, a...)
	}
}

func debugPatch(s *faceScratch) {
	if !debugOn {
		return
	}
	im := image.NewRGBA(image.Rect(0, 0, faceN*3*4, faceN*4))
	set := func(x, y int, c color.Color) {
		for dy := 0; dy < 4; dy++ {
			for dx := 0; dx < 4; dx++ {
				im.Set(x*4+dx, y*4+dy, c)
			}
		}
	}
	for y := 0; y < faceN; y++ {
		for x := 0; x < faceN; x++ {
			o := (y*faceN + x) * 3
			set(x, y, color.RGBA{uint8(s.patch[o+2]), uint8(s.patch[o+1]), uint8(s.patch[o]), 255})
			d := s.d[y*faceN+x] / 2
			if d > 255 {
				d = 255
			}
			set(x+faceN, y, color.Gray{uint8(d)})
			b := uint8(0)
			if s.bin[y*faceN+x] {
				b = 255
			}
			set(x+2*faceN, y, color.Gray{b})
		}
	}
	f, _ := os.Create(fmt.Sprintf("/tmp/dbg/patch%02d.png", debugN))
	png.Encode(f, im)
	f.Close()
	debugN++
}

var debugStats map[string]int
var debugKind string

func debugStat(k string) {
	if debugStats != nil {
		debugStats[k]++
	}
}

var debugGrid *image.RGBA
var debugGridN int

// debugGridAdd adds the current patch (colour and pip map) to a grid of
// up to 8x8 cells.
func debugGridAdd(s *faceScratch) {
	if debugGrid == nil || debugGridN >= 64 {
		return
	}
	cx, cy := (debugGridN%8)*faceN*2*3, (debugGridN/8)*faceN*3
	for y := 0; y < faceN*3; y++ {
		for x := 0; x < faceN*3; x++ {
			o := ((y/3)*faceN + x/3) * 3
			debugGrid.Set(cx+x, cy+y, color.RGBA{uint8(s.patch[o+2]), uint8(s.patch[o+1]), uint8(s.patch[o]), 255})
			d := s.d[(y/3)*faceN+x/3] / 2
			if d > 255 {
				d = 255
			}
			if s.bin[(y/3)*faceN+x/3] {
				debugGrid.Set(cx+faceN*3+x, cy+y, color.RGBA{uint8(d), 0, 0, 255})
			} else {
				debugGrid.Set(cx+faceN*3+x, cy+y, color.Gray{uint8(d)})
			}
		}
	}
	debugGridN++
}

func debugGridSave(path string) {
	f, _ := os.Create(path)
	png.Encode(f, debugGrid)
	f.Close()
}
