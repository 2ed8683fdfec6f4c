package calibview

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/calibration"
	"github.com/dicewatch/dicewatch/vision/internal/cvsafe"
)

type boxList []image.Rectangle

func (b *boxList) String() string { return fmt.Sprint(*b) }
func (b *boxList) Set(s string) error {
	var v [4]int
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return fmt.Errorf("box %q: want x0,y0,x1,y1", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return fmt.Errorf("box %q: %w", s, err)
		}
		v[i] = n
	}
	*b = append(*b, image.Rect(v[0], v[1], v[2], v[3]))
	return nil
}

// readBoxes reads JSON lines as `dicewatch read --json` prints them: each
// line an object with a "dice" array of detections, or one detection. A
// detection's "box" is [x0,y0,x1,y1], as read prints it, or the
// {"Min":{"X":..,"Y":..},"Max":{...}} of an image.Rectangle, as this
// function took before session 21 (read never printed that form, so
// `read --json IMAGE | calibrate -locate -boxes -` failed).
func readBoxes(r io.Reader) ([]image.Rectangle, error) {
	var out []image.Rectangle
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var v struct {
			Box  *jsonBox `json:"box"`
			Dice []struct {
				Box jsonBox `json:"box"`
			} `json:"dice"`
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			return nil, fmt.Errorf("boxes: %w", err)
		}
		if v.Box != nil {
			out = append(out, image.Rectangle(*v.Box))
		}
		for _, d := range v.Dice {
			out = append(out, image.Rectangle(d.Box))
		}
	}
	return out, sc.Err()
}

// jsonBox is a die box in either JSON form readBoxes takes.
type jsonBox image.Rectangle

func (b *jsonBox) UnmarshalJSON(data []byte) error {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '[' {
		var a []int
		if err := json.Unmarshal(t, &a); err != nil {
			return err
		}
		if len(a) != 4 {
			return fmt.Errorf("box %s: want [x0,y0,x1,y1]", t)
		}
		*b = jsonBox(image.Rect(a[0], a[1], a[2], a[3]))
		return nil
	}
	var r image.Rectangle
	if err := json.Unmarshal(data, &r); err != nil {
		return err
	}
	*b = jsonBox(r)
	return nil
}

// grab reads one still: from a file, or one frame from a camera source
// (v4l2:///dev/videoN, file:PATH, rtsp://..., or a device number).
func grab(still, camera string) (gocv.Mat, error) {
	if still != "" {
		m, err := cvsafe.ReadFile(still)
		if err != nil {
			return gocv.NewMat(), fmt.Errorf("calibview: cannot read still %s: %w", still, err)
		}
		return m, nil
	}
	var src any = camera
	if rest, ok := strings.CutPrefix(camera, "v4l2://"); ok {
		src = strings.SplitN(rest, "?", 2)[0]
	} else if rest, ok := strings.CutPrefix(camera, "file:"); ok {
		src = rest
	} else if n, err := strconv.Atoi(camera); err == nil {
		src = n
	}
	vc, err := gocv.OpenVideoCapture(src)
	if err != nil {
		return gocv.NewMat(), fmt.Errorf("calibview: open camera %s: %w", camera, err)
	}
	defer vc.Close()
	m := gocv.NewMat()
	// Skip a few frames so auto exposure settles.
	for i := 0; i < 10; i++ {
		if !vc.Read(&m) {
			break
		}
	}
	if m.Empty() {
		m.Close()
		return gocv.NewMat(), fmt.Errorf("calibview: camera %s gave no frame", camera)
	}
	return m, nil
}

// RunCalibrate is `dicewatch calibrate`.
func RunCalibrate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	still := fs.String("still", "", "still image of the empty table with the markers or chessboard laid out (PNG/JPEG)")
	camera := fs.String("camera", "", "grab the still from this camera source instead (v4l2:///dev/video0, file:clip.avi, rtsp://...)")
	tplName := fs.String("template", calibration.TemplateCraps12, "zone template: "+strings.Join(calibration.TemplateNames(), ", "))
	base := fs.String("base", "", "existing calibration file whose zones, die model, lens and camera view to keep (and, for -method points, whose reference.points to use); for a still of another size of the same shape its values in pixels are scaled, and said so")
	method := fs.String("method", calibration.MethodAruco, "reference method: aruco, chessboard or points")
	out := fs.String("out", "calibration.yaml", "calibration file to write")
	overlay := fs.String("overlay", "", "overlay PNG to write (default: -out with .png)")
	table := fs.String("table", "", "table id written in the file")
	maxErr := fs.Float64("max-error-mm", calibration.DefaultMaxErrorMM, "refuse the calibration when a reference point is off by more than this (mm)")
	diceStill := fs.String("dice-still", "", "still with dice on the layout; with -box, learn the die body and pip colours")
	var boxes boxList
	fs.Var(&boxes, "box", "a die box x0,y0,x1,y1 in pixels (repeatable)")
	boxesFile := fs.String("boxes", "", "file of JSON lines from `dicewatch read --json` whose boxes to locate (- for stdin)")
	locate := fs.Bool("locate", false, "print the zone and table mm of every -box/-boxes die box")
	calFile := fs.String("calibration", "", "with -locate: use this calibration instead of calibrating a still")
	background := fs.String("background", "", "where to save the still as the empty-table background (default: -out with -empty.png; \"none\" to skip)")
	markers := fs.String("markers", "", "write the template's ArUco markers as PNGs to print into this directory, and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintf(stderr, "dicewatch calibrate: %v\n", err)
		return 1
	}
	if *markers != "" {
		tpl, err := calibration.LoadTemplate(*tplName)
		if err != nil {
			return fail(err)
		}
		if err := WriteMarkerSheets(*markers, tpl.Aruco, stdout); err != nil {
			return fail(err)
		}
		return 0
	}
	if *boxesFile != "" {
		var r io.Reader = stdin
		if *boxesFile != "-" {
			f, err := os.Open(*boxesFile)
			if err != nil {
				return fail(err)
			}
			defer f.Close()
			r = f
		}
		bs, err := readBoxes(r)
		if err != nil {
			return fail(err)
		}
		boxes = append(boxes, bs...)
	}
	var c *calibration.Calibration
	if *calFile != "" {
		var err error
		if c, err = calibration.Load(*calFile); err != nil {
			return fail(err)
		}
	} else {
		if (*still == "") == (*camera == "") {
			fmt.Fprintln(stderr, "dicewatch calibrate: give exactly one of -still or -camera (or -calibration with -locate)")
			return 2
		}
		tpl, err := calibration.LoadTemplate(*tplName)
		if err != nil {
			return fail(err)
		}
		opts := Options{Template: tpl, Method: *method, Table: *table, MaxErrorMM: *maxErr, Report: stdout}
		if *base != "" {
			b, err := calibration.Load(*base)
			if err != nil {
				return fail(err)
			}
			// With method points, Calibrate takes the base's
			// reference.points, scaled to the still's size.
			opts.Base = b
		}
		img, err := grab(*still, *camera)
		if err != nil {
			return fail(err)
		}
		defer img.Close()
		c, err = Calibrate(img, opts)
		if err == nil && *diceStill != "" {
			err = learnColours(c, *diceStill, boxes)
		}
		// The background still's path is part of the calibration (and its
		// hash), so it is set before the overlay prints the hash.
		bgPath := ""
		if err == nil && *background != "none" {
			bgPath = *background
			if bgPath == "" {
				bgPath = strings.TrimSuffix(*out, ".yaml") + "-empty.png"
			}
			rel, rerr := filepath.Rel(filepath.Dir(*out), bgPath)
			if rerr != nil {
				rel = bgPath
			}
			c.Background = rel
			err = c.Validate() // refreshes the hash
		}
		ovPath := *overlay
		if ovPath == "" {
			ovPath = strings.TrimSuffix(*out, ".yaml") + ".png"
		}
		if c != nil {
			// The overlay is written even for a refused calibration, so the
			// technician can see which points are off.
			if werr := WriteOverlay(ovPath, img, c); werr != nil {
				return fail(werr)
			}
			fmt.Fprintf(stdout, "overlay: %s\n", ovPath)
		}
		if err != nil {
			return fail(fmt.Errorf("%w (nothing written to %s)", err, *out))
		}
		if bgPath != "" && !gocv.IMWrite(bgPath, img) {
			return fail(fmt.Errorf("calibview: write background %s: failed", bgPath))
		}
		if err := c.Save(*out); err != nil {
			return fail(err)
		}
		r := c.Reference
		fmt.Fprintf(stdout, "calibration: %s hash %s method %s points %d rms %.2f mm worst %.2f mm\n", *out, c.Hash(), r.Method, len(r.Points), r.RMSErrorMM, r.WorstErrorMM)
		// The camera's view of the table, for the cocked call (see
		// README.md, "The camera's view").
		fmt.Fprintf(stdout, "view: %s\n", c.View())
	}
	if *locate {
		for i, b := range boxes {
			ctr := calibration.Point{X: float64(b.Min.X+b.Max.X) / 2, Y: float64(b.Min.Y+b.Max.Y) / 2}
			mm := c.ToTable(ctr)
			role, name := c.Locate(mm)
			edge := float64(b.Dx()+b.Dy()) / 2
			fmt.Fprintf(stdout, "box %d [%d,%d %d,%d]: centre (%.1f, %.1f) px -> (%.1f, %.1f) mm, zone %s (%s), size %.2f of the expected %.1f px\n",
				i, b.Min.X, b.Min.Y, b.Max.X, b.Max.Y, ctr.X, ctr.Y, mm.X, mm.Y, c.ZoneAt(mm), nameOr(name, string(role)), edge/c.DiePx(ctr), c.DiePx(ctr))
		}
	}
	return 0
}

func nameOr(name, role string) string {
	if name == "" {
		return role
	}
	return name
}

// learnColours learns the die colours from the boxes in a still with dice
// on the layout and checks the result.
func learnColours(c *calibration.Calibration, still string, boxes []image.Rectangle) error {
	if len(boxes) == 0 {
		return fmt.Errorf("calibview: -dice-still needs at least one -box")
	}
	d, err := grab(still, "")
	if err != nil {
		return err
	}
	im, err := d.ToImage()
	d.Close()
	if err != nil {
		return fmt.Errorf("calibview: %w", err)
	}
	body, pips, err := calibration.LearnDieColours(im, boxes)
	if err != nil {
		return err
	}
	c.Die.Body, c.Die.Pips = &body, &pips
	return c.Validate()
}

// WriteMarkerSheets writes one PNG per marker of the layout (marker-ID.png,
// 40 px per cell, with a white quiet zone) and prints where each goes.
func WriteMarkerSheets(dir string, a *calibration.ArucoLayout, stdout io.Writer) error {
	if a == nil {
		return fmt.Errorf("calibview: the template has no aruco layout")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("calibview: markers: %w", err)
	}
	const cellPx = 40
	for _, m := range a.Markers {
		bits, side, err := MarkerBits(a.Dictionary, m.ID)
		if err != nil {
			return err
		}
		n := (side + 2) * cellPx
		img := image.NewGray(image.Rect(0, 0, n, n))
		for y := 0; y < n; y++ {
			for x := 0; x < n; x++ {
				cx, cy := x/cellPx-1, y/cellPx-1
				v := uint8(255)
				if cx >= 0 && cy >= 0 && cx < side && cy < side && !bits[cy*side+cx] {
					v = 0
				}
				img.SetGray(x, y, color.Gray{Y: v})
			}
		}
		path := filepath.Join(dir, fmt.Sprintf("marker-%02d.png", m.ID))
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("calibview: markers: %w", err)
		}
		if err := png.Encode(f, img); err != nil {
			f.Close()
			return fmt.Errorf("calibview: markers: %w", err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("calibview: markers: %w", err)
		}
		fmt.Fprintf(stdout, "%s: print the black square %g mm wide; centre it at table (%g, %g) mm, its top edge towards Y=0\n", path, a.MarkerMM, m.Center[0], m.Center[1])
	}
	return nil
}
