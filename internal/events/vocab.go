package events

import (
	"fmt"

	"github.com/panestate/panestate/session"
)

// This file holds the protocol's words: the names the lines use for phases,
// prompt kinds, workflow availabilities and root statuses, and how a list
// of roots folds into session.Workflows. The wire names are the protocol's
// and stay as they are whatever shape package session gives them.

// phases maps the phase names (Jazz's vocabulary) to session phases.
var phases = map[string]session.Phase{
	"none":           session.PhaseIdle,
	"idle":           session.PhaseIdle,
	"awaiting":       session.PhaseWorking,
	"thinking":       session.PhaseWorking,
	"streaming":      session.PhaseWorking,
	"tool_execution": session.PhaseWorking,
	"completed":      session.PhaseCompleted,
	"error":          session.PhaseError,
}

func parsePhase(name string) (session.Phase, error) {
	if p, ok := phases[name]; ok {
		return p, nil
	}
	return 0, fmt.Errorf("unknown phase %q (want awaiting, thinking, streaming, tool_execution, idle, completed, error or none)", name)
}

func parsePromptKind(name string) (session.PromptKind, error) {
	switch name {
	case "approval":
		return session.PromptApproval, nil
	case "question", "secret", "menu":
		return session.PromptInput, nil
	}
	return 0, fmt.Errorf("unknown prompt kind %q (want approval, question, secret or menu)", name)
}

// parseAvailability reports whether the stream named by name is unknown
// (unavailable or recovering). "" and "none" are a host without workflows:
// a ready stream with no roots.
func parseAvailability(name string) (unknown bool, err error) {
	switch name {
	case "", "none", "ready":
		return false, nil
	case "unavailable", "recovering":
		return true, nil
	}
	return false, fmt.Errorf("unknown workflow availability %q (want ready, unavailable or recovering)", name)
}

// status is a root workflow's status: the flag of session.Workflows it
// sets, or nil for a finished root.
type status func(*session.Workflows) *bool

var statuses = map[string]status{
	"executing":              func(w *session.Workflows) *bool { return &w.Executing },
	"automatic_continuation": func(w *session.Workflows) *bool { return &w.AutomaticContinuation },
	"retrying":               func(w *session.Workflows) *bool { return &w.Retrying },
	"stopping":               func(w *session.Workflows) *bool { return &w.Stopping },
	"awaiting_input":         func(w *session.Workflows) *bool { return &w.AwaitingInput },
	"manual_intervention":    func(w *session.Workflows) *bool { return &w.ManualIntervention },
	"paused":                 func(w *session.Workflows) *bool { return &w.Paused },
	// A finished root (completed, failed or cancelled) is no work.
	"completed": nil, "finished": nil, "failed": nil, "cancelled": nil, "canceled": nil,
}

// root is one root workflow of a workflows line.
type root struct {
	ID             string `json:"id"`
	Status         string `json:"status"`
	NeedsAttention bool   `json:"needs_attention"`
}

// workflows folds a workflows line into session.Workflows. Roots with the
// same id count once (the last wins); a finished root sets nothing, not
// even NeedsAttention. An unknown status is an error naming the root.
func workflows(availability string, roots []root) (session.Workflows, error) {
	unknown, err := parseAvailability(availability)
	if err != nil {
		return session.Workflows{}, err
	}
	w := session.Workflows{Unknown: unknown}
	for i, r := range roots {
		st, ok := statuses[r.Status]
		if !ok {
			return session.Workflows{}, fmt.Errorf("root %q: unknown workflow status %q", r.ID, r.Status)
		}
		if st == nil || duplicateLater(roots, i) {
			continue
		}
		*st(&w) = true
		if r.NeedsAttention {
			w.NeedsAttention = true
		}
	}
	return w, nil
}

// duplicateLater reports whether a later root has the same id as roots[i].
// Root lists are short; a quadratic scan avoids allocating a set.
func duplicateLater(roots []root, i int) bool {
	for _, r := range roots[i+1:] {
		if r.ID == roots[i].ID {
			return true
		}
	}
	return false
}
