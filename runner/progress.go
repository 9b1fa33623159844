package runner

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
	"unicode/utf8"
)

// progress is the live line on a terminal (Options.Progress): what is
// running and for how long, the rows written so far, the time since the
// start and, for a backfill, a rate and the time left. It is redrawn
// every progressTick and after each finished unit's line.
type progress struct {
	w       io.Writer
	start   time.Time
	running map[string]time.Time // unit → when it started
	rows    int64                // written by the finished units
	stop    chan struct{}
	stopped chan struct{}
}

const (
	progressTick  = 250 * time.Millisecond
	progressWidth = 120 // characters: the line is cut to fit a terminal
)

// startProgress starts the ticker that redraws the line; r.mu guards the
// state it reads.
func (r *run) startProgress() {
	if r.o.Progress == nil {
		return
	}
	p := &progress{w: r.o.Progress, start: time.Now(), running: map[string]time.Time{}, stop: make(chan struct{}), stopped: make(chan struct{})}
	r.prog = p
	go func() {
		defer close(p.stopped)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-t.C:
				r.mu.Lock()
				r.drawProgress()
				r.mu.Unlock()
			}
		}
	}()
}

// stopProgress stops the ticker and clears the line.
func (r *run) stopProgress() {
	p := r.prog
	if p == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	r.mu.Lock()
	fmt.Fprint(p.w, "\r\033[K")
	r.prog = nil
	r.mu.Unlock()
}

// progressStarted records a unit as running.
func (r *run) progressStarted(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.prog != nil {
		r.prog.running[id] = time.Now()
	}
}

// drawProgress redraws the line; the caller holds r.mu.
func (r *run) drawProgress() {
	p := r.prog
	if p == nil || r.done >= r.total {
		return
	}
	now := time.Now()
	var run []runningUnit
	for id, since := range p.running {
		run = append(run, runningUnit{id, now.Sub(since)})
	}
	fmt.Fprint(p.w, "\r\033[K"+progressLine(r.done, r.total, run, p.rows, now.Sub(p.start), progressWidth))
}

// finishedProgress takes a finished unit off the line; the caller holds r.mu.
func (r *run) finishedProgress(ur *UnitResult) {
	if r.prog != nil {
		delete(r.prog.running, ur.ID)
		r.prog.rows += ur.Rows
	}
}

type runningUnit struct {
	id   string
	for_ time.Duration
}

// progressLine is the text of the live line: "[12/365] running
// events_daily/2026-07-13 4.2s, dim_users 1.1s, +1 more · 1,234 rows · 12s
// · 4.1 units/s, about 1m28s left", cut to width characters. The rate and
// the time left appear once 3 units are done of at least 10.
func progressLine(done, total int, running []runningUnit, rows int64, elapsed time.Duration, width int) string {
	sort.Slice(running, func(i, j int) bool {
		if running[i].for_ != running[j].for_ {
			return running[i].for_ > running[j].for_ // longest first: what holds the run up
		}
		return running[i].id < running[j].id
	})
	var b strings.Builder
	fmt.Fprintf(&b, "[%d/%d] ", done, total)
	if len(running) == 0 {
		b.WriteString("starting…")
	} else {
		b.WriteString("running ")
		for i, u := range running {
			if i == 3 {
				fmt.Fprintf(&b, ", +%d more", len(running)-3)
				break
			}
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %s", u.id, short(u.for_))
		}
	}
	fmt.Fprintf(&b, " · %s rows · %s", thousands(rows), short(elapsed))
	if done >= 3 && total >= 10 && elapsed > 0 {
		rate := float64(done) / elapsed.Seconds()
		left := time.Duration(float64(total-done) / rate * float64(time.Second))
		fmt.Fprintf(&b, " · %.1f units/s, about %s left", rate, short(left))
	}
	return cut(b.String(), width)
}

// short prints a duration as 4.2s, 12s or 1m28s.
func short(d time.Duration) string {
	switch {
	case d < 10*time.Second:
		return fmt.Sprintf("%.1fs", d.Seconds())
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// thousands prints n with thousands separators: 1,234,567.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// cut shortens s to width characters, ending in an ellipsis.
func cut(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}
