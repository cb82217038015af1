package socket

// Session operations on the socket (spec 003 AI からのセッション操作, #415;
// protocol 11). Who may ask is decided at the WebSocket handshake, not by
// hello: a connection may carry its launch's operation capability in the
// CapabilityHeader (the app put it into that CLI's environment only). A
// capability of no running launch refuses the handshake (403); a
// connection without one talks in the room as before, and every session
// frame it sends is refused. The launch stays bound to the connection;
// each request checks it is still running (an ended launch's connection is
// refused too).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"pullcept/room"
	"pullcept/room/wire"
)

// CapabilityHeader carries a launch's operation capability in the
// WebSocket handshake.
const CapabilityHeader = "X-Pullcept-Operation-Capability"

// ControlWait is how long a session_control waits for its operation to
// finish before answering with the record as it is then (under the
// sidecar's 15 s answer wait: an answer that is still running says so
// instead of timing out).
var ControlWait = 12 * time.Second

// Launch is a launch of one of the app's seats, proven by its capability.
type Launch struct {
	Topic, Account string
	Generation     uint64
	PtyID          string
}

// Operations is what the socket needs of the app for session operations.
type Operations interface {
	// LaunchOf answers the running launch a capability belongs to.
	LaunchOf(capability string) (Launch, bool)
	// Alive says whether that launch still runs.
	Alive(l Launch) bool
	List(caller Launch) (wire.SessionList, error)
	Status(caller Launch, operationID string) (wire.SessionRecord, error)
	// Control accepts (or finds again) an operation and returns its
	// record at once; the app carries it out on its own.
	Control(caller Launch, op wire.SessionOperation) (wire.SessionRecord, error)
	// Wait returns the record once it is final, or as it is when ctx ends.
	Wait(ctx context.Context, operationID string) (wire.SessionRecord, error)
}

// Errors of session frames.
var (
	// ErrNoCapability: the connection proved no launch of this app.
	ErrNoCapability = errors.New("session operations are for this app's own seats: this connection proved no launch of this app (no operation capability at its handshake)")
	// ErrLaunchEnded: the launch the connection belongs to has ended.
	ErrLaunchEnded = errors.New("the launch this connection belongs to has ended; session operations are refused")
	// ErrNoOperations: the app takes no session operations.
	ErrNoOperations = errors.New("this room takes no session operations")
)

// SetOperations wires the app's session operations (before any seat
// starts).
func (s *Server) SetOperations(o Operations) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = o
}

func (s *Server) operations() Operations {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ops
}

// handshakeLaunch reads the capability of a handshake (its
// CapabilityHeader). ok false with a capability given: refuse the
// handshake.
func (s *Server) handshakeLaunch(capability string) (l *Launch, ok bool) {
	if capability == "" {
		return nil, true
	}
	ops := s.operations()
	if ops == nil {
		return nil, false
	}
	got, found := ops.LaunchOf(capability)
	if !found {
		return nil, false
	}
	return &got, true
}

// bindLaunch records connection id's launch (nil: none).
func (s *Server) bindLaunch(id room.ConnID, l *Launch) {
	if l == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.launches == nil {
		s.launches = map[room.ConnID]Launch{}
	}
	s.launches[id] = *l
}

func (s *Server) unbindLaunch(id room.ConnID) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.launches, id)
}

// LaunchConnected says whether a connection of launch l (by its
// capability: topic, account and generation, never by name) is seated in
// l's room now.
func (s *Server) LaunchConnected(l Launch) bool {
	s.mu.Lock()
	var ids []room.ConnID
	for id, got := range s.launches {
		if got.Topic == l.Topic && got.Account == l.Account && got.Generation == l.Generation {
			ids = append(ids, id)
		}
	}
	s.mu.Unlock()
	for _, id := range ids {
		if _, seated := s.engine.Identity(id); seated && s.engine.ConnTopic(id) == l.Topic {
			return true
		}
	}
	return false
}

// caller is connection id's launch, if it may ask.
func (s *Server) caller(id room.ConnID) (Operations, Launch, error) {
	ops := s.operations()
	if ops == nil {
		return nil, Launch{}, ErrNoOperations
	}
	s.mu.Lock()
	l, ok := s.launches[id]
	s.mu.Unlock()
	if !ok {
		return nil, Launch{}, ErrNoCapability
	}
	if !ops.Alive(l) {
		return nil, Launch{}, ErrLaunchEnded
	}
	return ops, l, nil
}

// sessionResult is the answer to request id: v as result, or err.
func sessionResult(requestID string, v any, err error) wire.SessionResult {
	res := wire.SessionResult{Type: wire.TypeSessionResult, RequestID: requestID}
	if err != nil {
		res.Error = wire.Cut(err.Error(), maxErrorText)
		return res
	}
	b, err := json.Marshal(v)
	if err != nil {
		res.Error = fmt.Sprintf("the answer could not be written: %v", err)
		return res
	}
	res.Result = b
	return res
}

// handleSession answers a session frame (nil: the answer follows later).
func (s *Server) handleSession(id room.ConnID, v any) any {
	switch f := v.(type) {
	case *wire.SessionListFrame:
		ops, caller, err := s.caller(id)
		if err != nil {
			return sessionResult(f.RequestID, nil, err)
		}
		list, err := ops.List(caller)
		return sessionResult(f.RequestID, list, err)
	case *wire.SessionStatusFrame:
		ops, caller, err := s.caller(id)
		if err != nil {
			return sessionResult(f.RequestID, nil, err)
		}
		rec, err := ops.Status(caller, f.OperationID)
		return sessionResult(f.RequestID, rec, err)
	case *wire.SessionControlFrame:
		ops, caller, err := s.caller(id)
		if err != nil {
			return sessionResult(f.RequestID, nil, err)
		}
		rec, err := ops.Control(caller, f.Operation)
		if err != nil || wire.OpFinal(rec.State) {
			return sessionResult(f.RequestID, rec, err)
		}
		// The operation runs on its own; the answer waits for its end, at
		// most ControlWait, off this connection's reader.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), ControlWait)
			defer cancel()
			if got, err := ops.Wait(ctx, rec.OperationID); err == nil {
				rec = got
			}
			s.mu.Lock()
			send := s.peers[id]
			s.mu.Unlock()
			if send != nil {
				_ = send(sessionResult(f.RequestID, rec, nil)) // a failed write ends that connection's reader
			}
		}()
		return nil
	}
	return nil
}
