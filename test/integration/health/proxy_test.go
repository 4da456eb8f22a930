package health_test

import (
	"errors"
	"io"
	"net"
	"net/url"
	"sync"
)

// proxy forwards TCP connections to a target until it is cut, and again
// once it is restored, on the same address: an API server the agent sees
// go down and come back.
type proxy struct {
	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]bool
}

func startProxy(targetURL string) (*proxy, error) {
	u, err := url.Parse(targetURL)
	if err != nil {
		return nil, err
	}
	p := &proxy{target: u.Host, conns: map[net.Conn]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p.addr = ln.Addr().String()
	p.serve(ln)
	return p, nil
}

// URL is the proxy's address as an API server URL.
func (p *proxy) URL() string { return "https://" + p.addr }

func (p *proxy) serve(ln net.Listener) {
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *proxy) forward(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	pipe := func(dst, src net.Conn) {
		_, _ = io.Copy(dst, src)
		done <- struct{}{}
	}
	go pipe(up, c)
	go pipe(c, up)
	<-done
	_ = c.Close()
	_ = up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

// Cut stops accepting and closes every open connection: connections are
// refused until Restore.
func (p *proxy) Cut() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln == nil {
		return nil
	}
	err := p.ln.Close()
	p.ln = nil
	for c := range p.conns {
		_ = c.Close()
	}
	return err
}

// Restore listens on the same address again.
func (p *proxy) Restore() error {
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return err
	}
	p.serve(ln)
	return nil
}

// Close cuts the proxy for good.
func (p *proxy) Close() error {
	if err := p.Cut(); err != nil && !errors.Is(err, net.ErrClosed) {
		return err
	}
	return nil
}
