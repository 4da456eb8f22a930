package main

import (
	"bytes"
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/corral-dev/corral/dev/image"
)

// program writes a file that stands for a program: it is no ELF file, so
// it is packed as it is, for any architecture.
func program(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte("#!/bin/true "+name+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func build(t *testing.T, o *BuildOptions, args ...string) error {
	t.Helper()
	if err := o.Complete(args); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return o.Run(context.Background())
}

func testBuildOptions(t *testing.T, out *bytes.Buffer) *BuildOptions {
	o := NewBuildOptions(out)
	o.Ref, o.Title, o.Version, o.Revision, o.Created = "ghcr.io/corral-dev/corral:v1.2.3", "corral", "v1.2.3", "0123abc", 1795926521
	dir := t.TempDir()
	o.Layout, o.Archive = filepath.Join(dir, "corral"), filepath.Join(dir, "corral.tar")
	return o
}

func TestBuildThenPush(t *testing.T) {
	var out bytes.Buffer
	o := testBuildOptions(t, &out)
	if err := build(t, o, "amd64="+program(t, "corral-linux-amd64"), "arm64="+program(t, "corral-linux-arm64")); err != nil {
		t.Fatalf("build: %v", err)
	}
	ref, idx, err := image.ReadLayout(o.Layout)
	if err != nil {
		t.Fatalf("reading what build wrote: %v", err)
	}
	digest, err := idx.Digest()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{o.Ref + "@" + digest.String(), "linux/amd64 sha256:", "linux/arm64 sha256:", " compressed, ", o.Layout + ": the OCI layout"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("build printed\n%s\nwithout %q", out.String(), want)
		}
	}
	if ref != o.Ref {
		t.Errorf("the layout names %q, want %q", ref, o.Ref)
	}
	if runtime.GOARCH == "amd64" || runtime.GOARCH == "arm64" {
		if _, err := os.Stat(o.Archive); err != nil {
			t.Errorf("no archive for this machine: %v", err)
		}
	}

	reg := httptest.NewServer(registry.New())
	defer reg.Close()
	pushed := strings.TrimPrefix(reg.URL, "http://") + "/corral-dev/corral:v1.2.3"
	out.Reset()
	p := NewPushOptions(&out)
	p.Layout, p.Ref, p.Insecure = o.Layout, pushed, true
	if err := p.Run(context.Background()); err != nil {
		t.Fatalf("push: %v", err)
	}
	if want := "pushed " + pushed + "@" + digest.String(); !strings.Contains(out.String(), want) {
		t.Errorf("push printed\n%s\nwithout %q", out.String(), want)
	}
	tag, err := name.NewTag(pushed, name.Insecure)
	if err != nil {
		t.Fatal(err)
	}
	got, err := remote.Index(tag)
	if err != nil {
		t.Fatalf("pulling what was pushed: %v", err)
	}
	if d, _ := got.Digest(); d != digest {
		t.Errorf("the registry has %s, want the built %s", d, digest)
	}
	for _, arch := range []string{"amd64", "arm64"} {
		img, err := image.ImageFor(got, arch)
		if err != nil {
			t.Fatalf("the pushed index: %v", err)
		}
		if _, err := img.Layers(); err != nil {
			t.Errorf("linux/%s: %v", arch, err)
		}
	}
}

func TestBuildRefuses(t *testing.T) {
	cases := map[string]struct {
		options func(*BuildOptions)
		args    []string
		want    string
	}{
		"no ARCH=":        {args: []string{"corral"}, want: "give programs as ARCH=PROGRAM"},
		"an arch twice":   {args: []string{"amd64=a", "amd64=b"}, want: "two programs for amd64"},
		"no version":      {options: func(o *BuildOptions) { o.Version = "" }, args: []string{"amd64=a"}, want: "--version is required"},
		"no layout":       {options: func(o *BuildOptions) { o.Layout = "" }, args: []string{"amd64=a"}, want: "--layout is required"},
		"no such program": {args: []string{"amd64=/no/such/program"}, want: "no such file"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			o := testBuildOptions(t, &bytes.Buffer{})
			if tc.options != nil {
				tc.options(o)
			}
			if err := build(t, o, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("build(%v) = %v, want an error saying %q", tc.args, err, tc.want)
			}
		})
	}
}

func TestStamp(t *testing.T) {
	cases := map[string]struct {
		ldflags         string
		version, commit string
	}{
		"make image's": {
			ldflags: "-s -w -X github.com/corral-dev/corral/internal/version.version=v1.2.3-4-gabc-dirty -X github.com/corral-dev/corral/internal/version.commit=abc123-dirty",
			version: "v1.2.3-4-gabc-dirty", commit: "abc123-dirty",
		},
		"with =": {
			ldflags: "-X=github.com/corral-dev/corral/internal/version.version=v1",
			version: "v1",
		},
		"not stamped": {ldflags: "-s -w"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			version, commit := stamp(tc.ldflags)
			if diff := cmp.Diff([]string{tc.version, tc.commit}, []string{version, commit}); diff != "" {
				t.Errorf("stamp(%q) (-want +got):\n%s", tc.ldflags, diff)
			}
		})
	}
}
