package app

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// Topic is a topic as the store lists it (topicstore.Topic), for the
// front ends.
type Topic = topicstore.Topic

// Participant is one seat of a room's roster.
type Participant = room.Participant

// Outcome is what a post became (delivered, or refused with the missed
// posts).
type Outcome = room.Outcome

// NewTopic makes a fresh topic and opens its room. The topic is lazy: it
// reaches the store with its first post or seat (spec 003 "トピック").
func (a *App) NewTopic() (string, error) {
	id := topicstore.NewID()
	if _, err := a.engine.Open(id); err != nil {
		return "", err
	}
	return id, nil
}

// EnsureOpen opens a topic's room if it is open already or known to the
// store.
func (a *App) EnsureOpen(topic string) error {
	if topic == "" {
		return fmt.Errorf(`%w: missing "topic"`, ErrBadTopic)
	}
	if !topicstore.ValidID(topic) {
		return fmt.Errorf("%w: %q", ErrBadTopic, topic)
	}
	if _, ok := a.engine.Room(topic); ok {
		return nil
	}
	if _, err := a.store.Get(topic); err != nil {
		return fmt.Errorf("%w: unknown topic %q: %v", ErrBadTopic, topic, err)
	}
	_, err := a.engine.Open(topic)
	return err
}

// IsOpen reports whether the topic's room is open in this run.
func (a *App) IsOpen(topic string) bool {
	_, ok := a.engine.Room(topic)
	return ok
}

// Page is one page of a topic's posts, oldest first.
type Page struct {
	Posts   []wire.Post
	HasMore bool
	// Skipped counts unreadable log lines (spec: 読めない行は飛ばす).
	Skipped int
}

// Opened is a topic opened for a front end: its last page and its roster.
type Opened struct {
	Page
	Participants []Participant
}

// Open opens a topic's room and reads its last page (limit 0 = the store's
// default).
func (a *App) Open(topic string, limit int) (Opened, error) {
	if err := a.EnsureOpen(topic); err != nil {
		return Opened{}, err
	}
	p, err := a.Page(topic, limit, "")
	if err != nil {
		return Opened{}, err
	}
	return Opened{Page: p, Participants: a.engine.Roster(topic)}, nil
}

// Page reads the page of topic's posts before the post before ("" = the
// newest). A topic not yet in the store has no posts.
func (a *App) Page(topic string, limit int, before string) (Page, error) {
	p, err := a.store.Page(topic, limit, before)
	if errors.Is(err, topicstore.ErrUnknownTopic) {
		return Page{}, nil // a lazy topic: nothing said yet
	}
	if err != nil {
		return Page{}, fmt.Errorf("read %s: %w", topic, err)
	}
	posts := make([]wire.Post, len(p.Posts))
	for i, lp := range p.Posts {
		posts[i] = room.FromLogPost(lp)
	}
	return Page{Posts: posts, HasMore: p.HasMore, Skipped: p.Skipped}, nil
}

// Topics lists the store's topics, newest first.
func (a *App) Topics() ([]Topic, error) { return a.store.List() }

// TopicByID is one topic of the store.
func (a *App) TopicByID(topic string) (Topic, error) { return a.store.Get(topic) }

// Roster is the participants of a topic's room.
func (a *App) Roster(topic string) []Participant { return a.engine.Roster(topic) }

// Rename names a topic.
func (a *App) Rename(topic, name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("a topic's name cannot be empty (Esc keeps the old one)")
	}
	if err := a.store.Rename(topic, name); err != nil {
		return fmt.Errorf("rename %s: %w", topic, err)
	}
	return nil
}

// Delete deletes a topic in the spec's order (#119): its seats are stopped,
// then its log file, attachments and index entry go, then its room.
func (a *App) Delete(ctx context.Context, topic string) error {
	if !topicstore.ValidID(topic) {
		return fmt.Errorf("%w: %q", ErrBadTopic, topic)
	}
	// The seats' lifecycle locks, as the person's stop takes one: no
	// session operation acts on a seat of the topic while it goes.
	var accounts []string
	for _, s := range a.seats.Seats(topic) {
		accounts = append(accounts, s.Account.ID)
	}
	slices.Sort(accounts) // one order: two deletes never wait on each other
	for _, acc := range accounts {
		unlock, err := a.life.lock(ctx, topic, acc)
		if err != nil {
			return fmt.Errorf("stop the seats of %s: %w", topic, err)
		}
		defer unlock()
	}
	if err := a.seats.StopTopic(topic); err != nil {
		return fmt.Errorf("stop the seats of %s: %w", topic, err)
	}
	a.dropTopicSleepers(topic)
	if err := a.store.Delete(topic); err != nil {
		return fmt.Errorf("delete %s: %w", topic, err)
	}
	a.engine.Drop(topic)
	a.forgetDeliveries(topic)
	a.forgetNeeds(topic)
	return nil
}

// Post is the person's post in a topic (the only admin post: spec "admin
// はソケットから作らない"). The room is opened first if the topic is known.
func (a *App) Post(topic, content, lastSeen string) (Outcome, error) {
	if err := a.EnsureOpen(topic); err != nil {
		return Outcome{}, err
	}
	return a.engine.PostAsPerson(topic, content, lastSeen)
}

// Usage is a seat's figures as last reported, each with its received time.
type Usage = room.Usage

// Usage returns the figures of account's seat in topic (ok false: none
// received). They outlive the session and go with the topic.
func (a *App) Usage(topic, account string) (Usage, bool) { return a.engine.Usage().Get(topic, account) }

// RoomEvent is one event of a room (post, roster, log error, usage).
type RoomEvent = room.Event

// The room event kinds a front end reads.
const (
	RoomPost     = room.EventPost
	RoomRoster   = room.EventRoster
	RoomLogError = room.EventLogError
	RoomUsage    = room.EventUsage
)
