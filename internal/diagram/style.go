package diagram

// CSS styles the pictures, in light and dark: a page that shows them
// includes it. Colours come from custom properties a page may override;
// html[data-theme=dark] switches them.
const CSS = `
:root {
  --dg-fg: #1f2328; --dg-muted: #6e7781; --dg-lane: #f3f4f6; --dg-lane-line: #d0d7de;
  --dg-proc: #b6d4fe; --dg-spin: #f59e0b; --dg-syscall: #a78bfa; --dg-steal: #0969da;
  --dg-preempt: #d1242f; --dg-retake: #8250df; --dg-sleep: #8c959f; --dg-stw: rgba(110,119,129,.18);
  --dg-resize: #1a7f37; --dg-global: #57606a; --dg-state: #ffffff; --dg-state-line: #57606a;
}
html[data-theme=dark] {
  --dg-fg: #e6edf3; --dg-muted: #9198a1; --dg-lane: #1c2128; --dg-lane-line: #30363d;
  --dg-proc: #1f4b8f; --dg-spin: #d29922; --dg-syscall: #8957e5; --dg-steal: #58a6ff;
  --dg-preempt: #ff7b72; --dg-retake: #bc8cff; --dg-sleep: #6e7681; --dg-stw: rgba(145,152,161,.22);
  --dg-resize: #3fb950; --dg-global: #8b949e; --dg-state: #161b22; --dg-state-line: #8b949e;
}
svg.timeline, svg.statemachine { font: 11px system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 100%; height: auto; }
.tl-title { fill: var(--dg-fg); font-weight: 600; font-size: 13px; }
.tl-lane { fill: var(--dg-lane); stroke: var(--dg-lane-line); stroke-width: .5; }
.tl-label { fill: var(--dg-fg); text-anchor: end; font-weight: 600; }
.tl-run rect { stroke: rgba(0,0,0,.25); stroke-width: .4; }
.tl-run:hover rect, .tl-proc:hover, .tl-syscall:hover { stroke: var(--dg-fg); stroke-width: 1.5; }
.tl-g { fill: #111; text-anchor: middle; font-size: 10px; pointer-events: none; }
.tl-proc { fill: var(--dg-proc); }
.tl-spin { fill: var(--dg-spin); }
.tl-spinning { stroke: var(--dg-spin); stroke-width: .6; }
.tl-syscall { fill: var(--dg-syscall); }
.tl-steal { fill: none; stroke: var(--dg-steal); stroke-width: 1.4; }
.tl-steal:hover { stroke-width: 3; }
.tl-steal-head { fill: var(--dg-steal); }
.tl-preempt { fill: var(--dg-preempt); }
.tl-sysmon-preempt line { stroke: var(--dg-preempt); stroke-dasharray: 3 2; }
.tl-sysmon-preempt circle { fill: var(--dg-preempt); }
.tl-retake line { stroke: var(--dg-retake); stroke-dasharray: 3 2; }
.tl-retake rect { fill: var(--dg-retake); }
.tl-sleep circle { fill: var(--dg-sleep); }
.tl-stw { fill: var(--dg-stw); }
.tl-global rect { fill: var(--dg-global); }
.tl-global rect:hover { stroke: var(--dg-fg); stroke-width: 1; }
.tl-resize line { stroke: var(--dg-resize); stroke-width: 1.5; }
.tl-resize text { fill: var(--dg-resize); font-weight: 600; }
.tl-axis line { stroke: var(--dg-muted); }
.tl-axis text { fill: var(--dg-muted); text-anchor: middle; font-size: 10px; }
.tl-range { fill: var(--dg-muted); text-anchor: end; }
svg.timeline.tl-live { max-width: none; touch-action: pan-y; user-select: none; -webkit-user-select: none; cursor: grab; }
svg.timeline.tl-live .tl-range { display: none; }
svg.timeline.tl-dragging { cursor: grabbing; }
svg.timeline:focus { outline: none; }
svg.timeline:focus-visible { outline: 2px solid var(--dg-steal); outline-offset: 2px; }
.tl-tools { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem .4rem; margin: .2rem 0 .3rem; font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--dg-muted); }
.tl-tools button { font: inherit; font-size: 13px; min-width: 2rem; height: 1.8rem; padding: 0 .55rem; color: var(--dg-fg); background: var(--dg-lane); border: 1px solid var(--dg-lane-line); border-radius: 6px; cursor: pointer; }
.tl-tools button:hover, .tl-tools button:focus-visible { border-color: var(--dg-steal); }
.tl-shown { margin-left: .3rem; font-variant-numeric: tabular-nums; }
@media print { .tl-tools { display: none; } svg.timeline.tl-live .tl-range { display: inline; } }
.sm-state rect { fill: var(--dg-state); stroke: var(--dg-state-line); stroke-width: 1.5; }
.sm-state text { fill: var(--dg-fg); text-anchor: middle; font-weight: 600; font-size: 13px; }
.sm-edge path { fill: none; stroke: var(--dg-muted); stroke-width: 1.3; }
.sm-edge text { fill: var(--dg-fg); font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; paint-order: stroke; stroke: var(--dg-state); stroke-width: 3px; }
.sm-edge:hover path { stroke: var(--dg-steal); stroke-width: 2.5; }
.sm-head { fill: var(--dg-muted); }
svg.figure { font: 12px system-ui, -apple-system, "Segoe UI", sans-serif; max-width: 100%; height: auto; }
.fg-caption, .fg-p, .fg-lane-title, .fg-step text, .fg-outcome text { fill: var(--dg-fg); }
.fg-p, .fg-lane-title, .fg-title { font-weight: 600; }
.fg-p { font-size: 13px; }
.fg-title { font-size: 13px; }
.fg-title.fg-bad { fill: var(--dg-preempt); }
.fg-title.fg-good { fill: var(--dg-resize); }
.fg-rule { stroke: var(--dg-lane-line); }
.fg-index, .fg-ell, .fg-state-title { fill: var(--dg-muted); text-anchor: middle; }
.fg-count { fill: var(--dg-muted); font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.fg-index { font-size: 9px; }
.fg-state-title, .fg-lane-title { font-size: 11px; }
.fg-slot rect { fill: var(--dg-state); stroke: var(--dg-lane-line); }
.fg-slot text { fill: var(--dg-fg); text-anchor: middle; font-size: 11px; font-weight: 600; }
.fg-queued rect { fill: var(--dg-proc); stroke: var(--dg-state-line); }
.fg-pending rect { stroke: var(--dg-steal); stroke-width: 1.5; stroke-dasharray: 3 2; }
.fg-stale text { fill: var(--dg-muted); font-weight: 400; }
.fg-ptr text { fill: var(--dg-fg); text-anchor: middle; font: 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.fg-ptr path { fill: var(--dg-fg); }
.fg-ptr.fg-moved text, .fg-index.fg-moved { fill: var(--dg-steal); font-weight: 700; }
.fg-ptr.fg-moved path { fill: var(--dg-steal); }
.fg-slot.fg-moved rect { stroke: var(--dg-steal); stroke-width: 2; }
.fg-runs { fill: var(--dg-resize); font-weight: 600; }
.fg-lane line { stroke: var(--dg-lane-line); stroke-dasharray: 4 3; }
.fg-lane path { fill: var(--dg-lane-line); }
.fg-kick path { fill: none; stroke: var(--dg-steal); stroke-width: 1.3; }
.fg-kick path.fg-kick-head { fill: var(--dg-steal); stroke: none; }
.fg-kick text { fill: var(--dg-steal); font-size: 10px; text-anchor: middle; }
.fg-step rect { fill: var(--dg-lane); stroke: var(--dg-lane-line); }
.fg-step text, .fg-outcome text { font-size: 11px; }
.fg-step.fg-bad rect { stroke: var(--dg-preempt); stroke-width: 2; }
.fg-step:hover rect { stroke: var(--dg-steal); stroke-width: 2; }
.fg-state { fill: var(--dg-steal); font: 700 11px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; text-anchor: middle; }
.fg-outcome rect { fill: none; stroke-width: 1.5; }
.fg-outcome.fg-bad rect { stroke: var(--dg-preempt); }
.fg-outcome.fg-good rect { stroke: var(--dg-resize); }
`

// Legend is an HTML key to a timeline's colours and marks.
const Legend = `<div class="tl-legend">` +
	`<span><svg width="14" height="10"><rect width="14" height="10" fill="hsl(200,62%,62%)"/></svg> a G running (one colour per G)</span>` +
	`<span><svg width="14" height="10"><rect width="14" height="10" class="tl-proc"/></svg> an M holding a P</span>` +
	`<span><svg width="14" height="10"><rect width="14" height="10" class="tl-spin"/></svg> an M spinning</span>` +
	`<span><svg width="14" height="10"><rect width="14" height="10" class="tl-syscall"/></svg> an M in a system call</span>` +
	`<span><svg width="16" height="10"><line x1="0" y1="5" x2="16" y2="5" class="tl-steal"/></svg> a steal</span>` +
	`<span><svg width="10" height="10"><path d="M5,8 l-4,-6 h8 z" class="tl-preempt"/></svg> preempted</span>` +
	`<span><svg width="10" height="10"><circle cx="5" cy="5" r="4" fill="var(--dg-preempt)"/></svg> sysmon asks a G to yield</span>` +
	`<span><svg width="10" height="10"><rect x="1" y="1" width="8" height="8" fill="var(--dg-retake)"/></svg> sysmon retakes a P</span>` +
	`<span><svg width="14" height="10"><rect width="14" height="10" class="tl-stw"/></svg> world stopped</span>` +
	`<span><svg width="14" height="10"><path d="M0,10 v-4 h4 v-5 h5 v7 h5 v2 z" fill="var(--dg-global)"/></svg> Gs waiting in the global run queue</span>` +
	`<span><svg width="14" height="10"><rect width="14" height="10" class="tl-lane"/></svg> blank: a P idle, an M parked</span>` +
	`</div>`
