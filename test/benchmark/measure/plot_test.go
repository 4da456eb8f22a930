package measure

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteSVG(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plot.svg")
	panels := []Panel{
		{Title: "time (s)", Series: []Series{{Name: "corral", Points: [][2]float64{{3000, 90}, {1000, 30}}}, {Name: "OCM <v1.2>", Points: [][2]float64{{1000, 60}}}}},
		{Title: "RSS (MB)", Series: []Series{{Name: "corral"}, {Name: "OCM <v1.2>"}}},
	}
	if err := WriteSVG(path, "clusters", panels); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ XMLName xml.Name }
	if err := xml.Unmarshal(data, &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Fatalf("not an SVG document (%v): %s", err, data)
	}
	svg := string(data)
	for _, want := range []string{"time (s)", "RSS (MB)", "OCM &lt;v1.2&gt;", "clusters", `<path d="M`} {
		if !strings.Contains(svg, want) {
			t.Errorf("the plot has no %q", want)
		}
	}
	if got := strings.Count(svg, "<circle"); got != 3 {
		t.Errorf("%d points drawn, want 3", got)
	}
}

func TestNiceCeil(t *testing.T) {
	for v, want := range map[float64]float64{0: 1, 0.3: 0.5, 1: 1, 1.1: 2, 3: 5, 7: 10, 420: 500, 1000: 1000, 10001: 20000} {
		if got := niceCeil(v); got != want {
			t.Errorf("niceCeil(%v) = %v, want %v", v, got, want)
		}
	}
}
