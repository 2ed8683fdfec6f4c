package source

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"gocv.io/x/gocv"

	"github.com/dicewatch/dicewatch/vision/internal/cvsafe"
)

// DirSource plays a directory of still images in name order, stamping frame
// i at i*1000/fps ms (fps from the URL, default 30).
type DirSource struct {
	dir    string
	files  []string
	fps    int
	idx    int
	closed bool
}

var _ Source = (*DirSource)(nil)

var stillExt = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".bmp": true, ".tif": true, ".tiff": true}

func openDir(u *url.URL, _ Options) (Source, error) {
	dir := pathOf(u)
	if dir == "" {
		return nil, fmt.Errorf("source: %w: dir url needs a path, e.g. dir:stills", ErrBadURL)
	}
	fps, err := queryInt(u.Query(), "fps", 30)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("source: dir: %w", err)
	}
	var files []string
	for _, e := range ents {
		if !e.IsDir() && stillExt[strings.ToLower(filepath.Ext(e.Name()))] {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return &DirSource{dir: dir, files: files, fps: fps}, nil
}

// Read decodes the next still into dst. A still that does not decode gives
// ErrCorruptFrame and the next Read moves on to the following file.
func (s *DirSource) Read(dst *gocv.Mat) (Frame, error) {
	if s.closed || s.idx >= len(s.files) {
		return Frame{}, fmt.Errorf("source: dir %s: %w after %d stills", s.dir, ErrEndOfStream, s.idx)
	}
	i := s.idx
	s.idx++
	img, err := cvsafe.ReadFile(s.files[i])
	if err != nil {
		return Frame{}, fmt.Errorf("source: dir %s: %w: %s does not decode: %v", s.dir, ErrCorruptFrame, filepath.Base(s.files[i]), err)
	}
	defer img.Close()
	img.CopyTo(dst)
	return Frame{Index: i, AtMS: int64(i) * 1000 / int64(s.fps), Width: img.Cols(), Height: img.Rows()}, nil
}

// Close ends the source. It is safe to call more than once.
func (s *DirSource) Close() error {
	s.closed = true
	return nil
}
