package measure

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
)

// Panel is one chart of a plot: a measure (Title, with its unit) of
// each series against the plot's x.
type Panel struct {
	Title  string
	Series []Series
}

// Series is one line of a panel: (x, y) points, drawn in x order.
type Series struct {
	Name   string
	Points [][2]float64
}

// seriesColours are the lines' colours, in series order: told apart in
// print and by the colour-blind.
var seriesColours = []string{"#0072b2", "#d55e00", "#009e73", "#cc79a7"}

const (
	panelWidth, panelHeight = 300, 220
	marginLeft, marginTop   = 56, 36
	plotWidth, plotHeight   = panelWidth - marginLeft - 16, panelHeight - marginTop - 44
)

// WriteSVG writes the panels side by side as an SVG file at path, x
// labelled xLabel, every axis from 0, with a legend of the series.
func WriteSVG(path, xLabel string, panels []Panel) error {
	var s strings.Builder
	width, height := panelWidth*len(panels), panelHeight+24
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	fmt.Fprintf(&s, `<rect width="%d" height="%d" fill="white"/>`+"\n", width, height)
	for i, p := range panels {
		writePanel(&s, float64(i*panelWidth), xLabel, p)
	}
	if len(panels) > 0 {
		for i, se := range panels[0].Series {
			x := 12 + 140*i
			fmt.Fprintf(&s, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s</text>`+"\n",
				x, height-10, x+20, height-10, seriesColours[i%len(seriesColours)], x+26, height-6, escape(se.Name))
		}
	}
	s.WriteString("</svg>\n")
	return os.WriteFile(path, []byte(s.String()), 0o644)
}

func writePanel(s *strings.Builder, left float64, xLabel string, p Panel) {
	var maxX, maxY float64
	for _, se := range p.Series {
		for _, pt := range se.Points {
			maxX, maxY = math.Max(maxX, pt[0]), math.Max(maxY, pt[1])
		}
	}
	maxX, maxY = niceCeil(maxX), niceCeil(maxY*1.05)
	ox, oy := left+marginLeft, float64(marginTop+plotHeight)
	at := func(x, y float64) (float64, float64) {
		return ox + x/maxX*plotWidth, oy - y/maxY*plotHeight
	}
	fmt.Fprintf(s, `<text x="%.0f" y="20" font-weight="bold">%s</text>`+"\n", left+marginLeft, escape(p.Title))
	fmt.Fprintf(s, `<path d="M%.0f %d V%.0f H%.0f" fill="none" stroke="#444"/>`+"\n", ox, marginTop, oy, ox+plotWidth)
	for k := 0; k <= 4; k++ {
		x, y := maxX*float64(k)/4, maxY*float64(k)/4
		px, _ := at(x, 0)
		_, py := at(0, y)
		fmt.Fprintf(s, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", px, oy+14, tick(x))
		fmt.Fprintf(s, `<text x="%.0f" y="%.0f" text-anchor="end">%s</text>`+"\n", ox-4, py+4, tick(y))
		if k > 0 {
			fmt.Fprintf(s, `<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#ddd"/>`+"\n", ox, py, ox+plotWidth, py)
		}
	}
	fmt.Fprintf(s, `<text x="%.0f" y="%.0f" text-anchor="middle">%s</text>`+"\n", ox+plotWidth/2, oy+30, escape(xLabel))
	for i, se := range p.Series {
		pts := slices.Clone(se.Points)
		slices.SortFunc(pts, func(a, b [2]float64) int { return int(math.Copysign(1, a[0]-b[0])) })
		colour := seriesColours[i%len(seriesColours)]
		var path strings.Builder
		for j, pt := range pts {
			x, y := at(pt[0], pt[1])
			fmt.Fprintf(&path, "%s%.1f %.1f ", map[bool]string{true: "M", false: "L"}[j == 0], x, y)
			fmt.Fprintf(s, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"><title>%s: %s</title></circle>`+"\n", x, y, colour, escape(se.Name), tick(pt[1]))
		}
		if len(pts) > 1 {
			fmt.Fprintf(s, `<path d="%s" fill="none" stroke="%s" stroke-width="2"/>`+"\n", strings.TrimSpace(path.String()), colour)
		}
	}
}

// niceCeil is the least of 1, 2 or 5 times a power of ten that is at
// least v (1 for v ≤ 0): an axis's end.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func tick(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
