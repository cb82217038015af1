package dial

// TCP without package net: its inits (net, net/netip and the DNS message
// parser, a goroutine among them) cost every `pullcept` command 0.06 ms of
// start-up, and this package is linked into all of them
// (docs/performance.md, "Issue 13, eighth session"). The room listens on
// 127.0.0.1, so an IPv4 address or localhost is all there is to reach; a
// non-blocking socket in an *os.File is on Go's poller, with deadlines, as
// a net.Conn is.

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// openTCP starts a connection to host:port (host an IPv4 address or
// localhost). connected waits for it.
func openTCP(host, port string) (*os.File, error) {
	ip, err := parseIPv4(host)
	if err != nil {
		return nil, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return nil, fmt.Errorf("port %q is not a port number", port)
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1) // as net does: a frame is sent at once
	err = syscall.Connect(fd, &syscall.SockaddrInet4{Port: p, Addr: ip})
	if err != nil && err != syscall.EINPROGRESS && err != syscall.EINTR {
		syscall.Close(fd)
		return nil, os.NewSyscallError("connect", err)
	}
	return os.NewFile(uintptr(fd), "tcp:"+host+":"+port), nil
}

// connected waits until f's connection is made or refused, within f's
// write deadline (the caller's context sets it).
func connected(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var cerr error
	werr := rc.Write(func(fd uintptr) bool {
		v, err := syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_ERROR)
		if err != nil {
			cerr = os.NewSyscallError("getsockopt", err)
			return true
		}
		switch e := syscall.Errno(v); e {
		case syscall.EINPROGRESS, syscall.EALREADY, syscall.EINTR:
			return false
		case 0:
			// Still connecting also reads 0: connected once it has a peer.
			_, err := syscall.Getpeername(int(fd))
			return err == nil
		default:
			cerr = os.NewSyscallError("connect", e)
			return true
		}
	})
	if werr != nil {
		return werr
	}
	return cerr
}

// parseIPv4 reads a dotted-quad address, or localhost.
func parseIPv4(host string) ([4]byte, error) {
	var ip [4]byte
	if strings.EqualFold(host, "localhost") {
		return [4]byte{127, 0, 0, 1}, nil
	}
	parts := strings.Split(host, ".")
	if len(parts) != 4 {
		return ip, errors.New("the host is not an IPv4 address or localhost (the room listens on 127.0.0.1)")
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 255 || p == "" || p[0] == '+' || (len(p) > 1 && p[0] == '0') {
			return ip, errors.New("the host is not an IPv4 address or localhost (the room listens on 127.0.0.1)")
		}
		ip[i] = byte(n)
	}
	return ip, nil
}
