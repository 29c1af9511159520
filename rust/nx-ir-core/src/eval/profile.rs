//! The cost profiler: where a call's operations go, per declaration, per node kind and per call
//! path, with call counts.
//!
//! Profiling is a separate path. A host asks for it with [`profile_next_call`] (on the thread that
//! runs the call); the next evaluation that starts on that thread installs a [`Profiler`] in its
//! machine and keeps the machine's long-run mark pinned at `remaining`, so every charge takes the
//! machine's cold slow path, which records it here. Without a request nothing changes: the fast
//! paths are the ones an unprofiled call takes. [`take_profile`] hands back what the call used.
//!
//! Every operation charged is counted exactly once, so [`Profile::total`] is the call's
//! `usage.operations` (budget minus what remained), on success and on failure alike. A charge
//! that the budget refused is not counted; it is where the budget ran out ([`Profile::ran_out`]).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use crate::error::{codes, IrError, IrResult};

use super::compiled::{CDeclKind, CNode, CompiledProgram, Target};
use super::machine::{Charge, Cx, Machine};

thread_local! {
    static REQUESTED: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<Profile>> = const { RefCell::new(None) };
}

/// Profiles the next evaluation started on this thread (dropping a profile not yet taken).
pub fn profile_next_call() {
    REQUESTED.with(|r| r.set(true));
    LAST.with(|last| last.borrow_mut().take());
}

/// The profile of the evaluation [`profile_next_call`] asked for, once it has run (`None` when no
/// evaluation started, e.g. a call refused before it ran); withdraws a request not yet used.
pub fn take_profile() -> Option<Profile> {
    REQUESTED.with(|r| r.set(false));
    LAST.with(|last| last.borrow_mut().take())
}

/// Runs `call` profiled: its result and the profile of the evaluation it ran.
pub fn profiled<R>(call: impl FnOnce() -> R) -> (R, Option<Profile>) {
    profile_next_call();
    let result = call();
    (result, take_profile())
}

/// Whether the next evaluation started on this thread is to be profiled (the request is kept).
pub fn is_requested() -> bool {
    REQUESTED.with(Cell::get)
}

/// Whether the evaluation starting now is to be profiled (the request is used up).
#[inline]
pub(crate) fn requested() -> bool {
    REQUESTED.with(|r| r.replace(false))
}

pub(crate) fn deposit(profile: Profile) {
    LAST.with(|last| *last.borrow_mut() = Some(profile));
}

/// Node kinds as the profile names them; charges that belong to no node (checking a value
/// against its type, flattening content, writing the result) are `(values)`.
const KINDS: [&str; 28] = [
    "(values)", "literal", "local", "reference", "binary", "neg", "not", "call", "namedCall", "intrinsic", "if",
    "ifIs", "array", "for", "member", "record", "unionCase", "element", "component", "actionHandler", "text",
    "exists", "coalesce", "standardMath", "standardColor", "check", "interval", "badLiteral",
];

fn kind_of(node: &CNode) -> usize {
    match node {
        CNode::Bool(_) | CNode::Str(_) | CNode::Int(_) | CNode::Float(_) => 1,
        CNode::Slot { .. } => 2,
        CNode::Reference(_) => 3,
        CNode::Binary { .. } => 4,
        CNode::Neg(_) => 5,
        CNode::Not(_) => 6,
        CNode::Call { .. } => 7,
        CNode::NamedCall { .. } => 8,
        CNode::Intrinsic { .. } => 9,
        CNode::If { .. } => 10,
        CNode::IfIs { .. } => 11,
        CNode::Array(_) => 12,
        CNode::For { .. } => 13,
        CNode::Member { .. } => 14,
        CNode::Record { .. } => 15,
        CNode::UnionCase { .. } => 16,
        CNode::Element { .. } => 17,
        CNode::Component { .. } => 18,
        CNode::ActionHandler { .. } => 19,
        CNode::Text { .. } => 20,
        CNode::Exists(_) => 21,
        CNode::Coalesce { .. } => 22,
        CNode::StandardMath { .. } => 23,
        CNode::StandardColor { .. } => 24,
        CNode::Check { .. } => 25,
        CNode::Interval(_) => 26,
        CNode::BadLiteral(_) => 27,
    }
}

/// One call path: a declaration under its caller's path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileFrame {
    /// The caller's path (`None` for the paths the host called).
    pub parent: Option<usize>,
    /// `module::name`, as diagnostics name it.
    pub declaration: String,
    /// `function`, `value`, `record`, `union`, `component` or `other`.
    pub kind: &'static str,
    /// Operations charged on this path itself (not in paths below it).
    pub self_ops: u64,
    /// Calls (functions), constructions (records, unions, components) or evaluations (values)
    /// on this path.
    pub calls: u64,
}

/// A node kind's share: how many nodes of it were evaluated and the operations charged to them
/// (each node's own 1 plus what it charged for its items, text or check).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindCost {
    pub kind: &'static str,
    pub count: u64,
    pub operations: u64,
}

/// A declaration's share over every path it is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclarationCost {
    pub declaration: String,
    pub kind: &'static str,
    pub self_ops: u64,
    /// Its own operations and those of everything it called (a recursive declaration counted
    /// once, at its outermost path).
    pub total: u64,
    pub calls: u64,
}

/// Where the budget ran out: the path, the node kind charged (`(values)` for a value's check or
/// write) and the operations that charge asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RanOut {
    pub frame: usize,
    pub node_kind: &'static str,
    pub requested: u64,
}

/// What one profiled evaluation charged, and where.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Profile {
    /// Every operation charged: the call's `usage.operations` when it ran under a budget.
    pub total: u64,
    /// The call paths, each after its caller.
    pub frames: Vec<ProfileFrame>,
    /// Node kinds with at least one operation, most operations first.
    pub kinds: Vec<KindCost>,
    pub ran_out: Option<RanOut>,
}

impl Profile {
    /// Each path's total: its own operations and those of the paths below it.
    pub fn frame_totals(&self) -> Vec<u64> {
        let mut totals: Vec<u64> = self.frames.iter().map(|f| f.self_ops).collect();
        // A frame comes after its parent, so a reverse walk adds children before parents.
        for at in (0..self.frames.len()).rev() {
            if let Some(parent) = self.frames[at].parent {
                totals[parent] += totals[at];
            }
        }
        totals
    }

    /// The names on path `frame`, outermost first.
    pub fn path(&self, frame: usize) -> Vec<&str> {
        let mut names = Vec::new();
        let mut at = Some(frame);
        while let Some(index) = at {
            let Some(f) = self.frames.get(index) else { break };
            names.push(f.declaration.as_str());
            at = f.parent;
        }
        names.reverse();
        names
    }

    /// Per declaration, most total operations first (then by name).
    pub fn declarations(&self) -> Vec<DeclarationCost> {
        let totals = self.frame_totals();
        let mut out: Vec<DeclarationCost> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for (at, frame) in self.frames.iter().enumerate() {
            let slot = *index.entry(frame.declaration.as_str()).or_insert_with(|| {
                out.push(DeclarationCost {
                    declaration: frame.declaration.clone(),
                    kind: frame.kind,
                    self_ops: 0,
                    total: 0,
                    calls: 0,
                });
                out.len() - 1
            });
            let cost = &mut out[slot];
            cost.self_ops += frame.self_ops;
            cost.calls += frame.calls;
            // Counted at the outermost path it is on only, so recursion is not counted twice.
            let mut above = frame.parent;
            let mut nested = false;
            while let Some(parent) = above {
                if self.frames[parent].declaration == frame.declaration {
                    nested = true;
                    break;
                }
                above = self.frames[parent].parent;
            }
            if !nested {
                cost.total += totals[at];
            }
        }
        out.sort_by(|a, b| b.total.cmp(&a.total).then_with(|| a.declaration.cmp(&b.declaration)));
        out
    }
}

struct Frame {
    parent: u32,
    module: u32,
    decl: u32,
    self_ops: u64,
    calls: u64,
}

/// A machine's profiling state while it runs (see the module doc).
pub(crate) struct Profiler {
    /// The long-run mark the machine would have without the profiler.
    hook_mark: u64,
    /// Path 0 is the host; the others are `Frame`s under it.
    frames: Vec<Frame>,
    children: HashMap<(u32, u32, u32), u32>,
    /// The function paths entered and not yet left (path 0 at the bottom).
    stack: Vec<u32>,
    /// The last path the host called, which what follows the call (checking and writing its
    /// result) belongs to.
    last_called: u32,
    kinds: [(u64, u64); KINDS.len()],
    total: u64,
    ran_out: Option<(u32, usize, u64)>,
}

impl Profiler {
    fn new(hook_mark: u64) -> Self {
        let host = Frame { parent: u32::MAX, module: u32::MAX, decl: u32::MAX, self_ops: 0, calls: 0 };
        Profiler {
            hook_mark,
            frames: vec![host],
            children: HashMap::new(),
            stack: vec![0],
            last_called: 0,
            kinds: [(0, 0); KINDS.len()],
            total: 0,
            ran_out: None,
        }
    }

    fn child(&mut self, parent: u32, module: u32, decl: u32) -> u32 {
        let frames = &mut self.frames;
        *self.children.entry((parent, module, decl)).or_insert_with(|| {
            frames.push(Frame { parent, module, decl, self_ops: 0, calls: 0 });
            (frames.len() - 1) as u32
        })
    }

    /// The innermost path entered (between host calls, the last one the host called).
    fn top(&self) -> u32 {
        match self.stack.as_slice() {
            [_] => self.last_called,
            stack => *stack.last().unwrap_or(&0),
        }
    }

    /// The path a charge at `cx` belongs to: the function path it runs in, or, for a charge in
    /// another declaration (a record's fields, a value's initializer), that declaration below it.
    fn frame_at(&mut self, cx: Cx) -> u32 {
        let top = self.top();
        let frame = &self.frames[top as usize];
        if frame.module == cx.module && frame.decl == cx.decl {
            top
        } else {
            self.child(top, cx.module, cx.decl)
        }
    }

    fn charged(&mut self, prog: &CompiledProgram, cx: Cx, node: Option<u32>, amount: u64, is_node: bool) {
        let frame = self.frame_at(cx);
        self.frames[frame as usize].self_ops += amount;
        self.total += amount;
        let kind = match node.and_then(|n| node_at(prog, cx.module, n)) {
            Some(node) => {
                if is_node {
                    self.constructed(prog, node);
                }
                kind_of(node)
            }
            None => 0,
        };
        self.kinds[kind].1 += amount;
        if is_node {
            self.kinds[kind].0 += 1;
        }
    }

    /// Counts a construction of a record, union case or component, or an evaluation of a value,
    /// as a call of that declaration on the current path.
    fn constructed(&mut self, prog: &CompiledProgram, node: &CNode) {
        let target = match node {
            CNode::Record { target, .. } | CNode::UnionCase { target, .. } | CNode::Component { target, .. } => target,
            CNode::Reference(target) => target,
            _ => return,
        };
        let Target::Decl { module, decl } = target else { return };
        let Some(declaration) = prog.modules.get(*module as usize).and_then(|m| m.decls.get(*decl as usize)) else {
            return;
        };
        if matches!(declaration.kind, CDeclKind::Function { .. }) {
            return;
        }
        let frame = self.child(self.top(), *module, *decl);
        self.frames[frame as usize].calls += 1;
    }

    fn refused(&mut self, prog: &CompiledProgram, cx: Cx, node: Option<u32>, amount: u64) {
        let frame = self.frame_at(cx);
        let kind = node.and_then(|n| node_at(prog, cx.module, n)).map_or(0, kind_of);
        self.ran_out = Some((frame, kind, amount));
    }

    fn finish(self, prog: &CompiledProgram) -> Profile {
        let frames = self
            .frames
            .iter()
            .skip(1)
            .map(|f| {
                let declaration = prog.modules.get(f.module as usize).and_then(|m| m.decls.get(f.decl as usize));
                ProfileFrame {
                    parent: if f.parent == 0 { None } else { Some(f.parent as usize - 1) },
                    declaration: declaration.map_or_else(String::new, |_| prog.qualified(f.module, f.decl).to_string()),
                    kind: declaration.map_or("other", |d| match d.kind {
                        CDeclKind::Function { .. } => "function",
                        CDeclKind::Value { .. } => "value",
                        CDeclKind::Record { .. } => "record",
                        CDeclKind::Union { .. } => "union",
                        CDeclKind::Component { .. } => "component",
                        _ => "other",
                    }),
                    self_ops: f.self_ops,
                    calls: f.calls,
                }
            })
            .collect();
        let mut kinds: Vec<KindCost> = KINDS
            .iter()
            .zip(self.kinds)
            .filter(|(_, (count, operations))| *count > 0 || *operations > 0)
            .map(|(kind, (count, operations))| KindCost { kind, count, operations })
            .collect();
        kinds.sort_by(|a, b| b.operations.cmp(&a.operations).then_with(|| a.kind.cmp(b.kind)));
        // The host's own path (charges before any declaration ran) has no frame: none are made.
        let ran_out = self.ran_out.and_then(|(frame, kind, requested)| {
            (frame > 0).then(|| RanOut { frame: frame as usize - 1, node_kind: KINDS[kind], requested })
        });
        Profile { total: self.total, frames, kinds, ran_out }
    }
}

fn node_at(prog: &CompiledProgram, module: u32, node: u32) -> Option<&CNode> {
    prog.modules.get(module as usize)?.nodes.get(node as usize)
}

fn budget_refusal(error: &IrError) -> bool {
    error.code() == codes::RESOURCE_LIMIT
        && error.diagnostics.first().and_then(|d| d.limit.as_ref()).is_some_and(|l| l.name == "maxOperations")
}

impl Machine<'_> {
    /// Installs a profiler: from here every charge takes the slow path, which records it.
    pub(crate) fn start_profile(&mut self) {
        let hook_mark = self.mark;
        self.profiler = Some(Box::new(Profiler::new(hook_mark)));
        self.mark = self.remaining;
    }

    /// The profile of what this machine charged.
    pub(crate) fn finish_profile(&mut self) -> Option<Profile> {
        let profiler = self.profiler.take()?;
        Some(profiler.finish(self.prog))
    }

    /// Sets the long-run mark: the machine's own, or the profiler's while one is installed.
    pub(crate) fn set_mark(&mut self, mark: u64) {
        match &mut self.profiler {
            Some(profiler) => profiler.hook_mark = mark,
            None => self.mark = mark,
        }
    }

    /// A charge while profiling: made as the machine would make it without the profiler (its own
    /// long-run mark in place), then recorded; the mark is pinned again so the next charge comes
    /// here too.
    #[cold]
    #[inline(never)]
    pub(crate) fn profiled_charge(&mut self, cx: Cx, node: Option<u32>, amount: u64, how: Charge) -> IrResult<()> {
        let Some(mut profiler) = self.profiler.take() else {
            // Not reached (the callers check for a profiler): charged as without one.
            return self.charge_as(cx, node, amount, how);
        };
        self.mark = profiler.hook_mark.min(self.remaining);
        let result = self.charge_as(cx, node, amount, how);
        profiler.hook_mark = self.mark;
        let is_node = how != Charge::Amount;
        match &result {
            Ok(()) => profiler.charged(self.prog, cx, node, amount, is_node),
            Err(error) if budget_refusal(error) => profiler.refused(self.prog, cx, node, amount),
            Err(_) => {}
        }
        self.mark = self.remaining;
        self.profiler = Some(profiler);
        result
    }

    /// The charge `how` names, made as without a profiler.
    fn charge_as(&mut self, cx: Cx, node: Option<u32>, amount: u64, how: Charge) -> IrResult<()> {
        match (how, node) {
            (Charge::Node, Some(index)) => self.charge_node(cx, index),
            (Charge::InPlace, Some(index)) => self.charge_in_place(cx, index),
            _ => self.charge(cx, node, amount),
        }
    }

    /// Enters the path of a function call (counted as a call) or of a value's evaluation (counted
    /// where its reference was charged) while profiling; answers what [`Machine::profile_leave`]
    /// returns to. Without a profiler it does nothing.
    pub(crate) fn profile_enter(&mut self, module: u32, decl: u32, call: bool) -> usize {
        let Some(profiler) = &mut self.profiler else { return 0 };
        let depth = profiler.stack.len();
        let top = *profiler.stack.last().unwrap_or(&0);
        let frame = profiler.child(top, module, decl);
        if call {
            profiler.frames[frame as usize].calls += 1;
        }
        profiler.stack.push(frame);
        depth
    }

    /// Leaves the paths entered since `depth` (also those a failure left entered).
    pub(crate) fn profile_leave(&mut self, depth: usize) {
        if let Some(profiler) = &mut self.profiler {
            if depth <= 1 {
                if let Some(&called) = profiler.stack.get(1) {
                    profiler.last_called = called;
                }
            }
            profiler.stack.truncate(depth.max(1));
        }
    }
}
