//! The evaluator proper: one [`Machine`] per call, walking the compiled node arena under the
//! budget. Every node evaluation charges 1 and nests one level (ir-format §4.2, §6.1).

use std::cell::Cell;
use std::rc::Rc;

use crate::error::{codes, IrError, IrResult, SourceSpan};

use super::constants::{self, Room};
use super::compiled::{BinOp, CCase, CDeclKind, CField, CNode, CaseEntry, CaseIndex, CompiledProgram, Shape, Target, TextForm, NO_CASE};
use super::cost::{limit_error, stack_allowance, stack_position, Limits, MAX_EXPRESSION_NESTING};
use super::components::SplitProps;
use super::normalize::Path;
use super::text::{float32_text, write_float64, NumberText};
use super::LongRunNext;
use super::field_set::settle;
use super::seq::{Items, Texts};
use super::value::{int_digits, len16, set_field, text_cost, CaseValue, FunctionRef, Handler, Name, Record, Text, Value, INDEXED_FIELDS};

/// Where evaluation is: the module whose tables the indices belong to, the declaration, and the
/// call depth.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cx {
    pub module: u32,
    pub decl: u32,
    pub depth: u32,
}

pub(crate) type Frame = Vec<Option<Value>>;

/// Which charge a profiled charge is ([`Machine::profiled_charge`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Charge {
    /// An amount ([`Machine::charge`]).
    Amount,
    /// A node's evaluation, with its nesting and stack checks ([`Machine::charge_node`]).
    Node,
    /// A node read in place ([`Machine::charge_in_place`]).
    InPlace,
}

/// A construction's written properties, and whether any of them is a spread.
pub(crate) type Props<'a> = (&'a [(Name, u32)], bool);

const MAX_SLOTS: usize = 1 << 16;

/// Bytes a record field takes (a name and a value), for the memory ceiling.
pub(crate) const FIELD_BYTES: u64 = 32;
/// Bytes a list item takes.
pub(crate) const ITEM_BYTES: u64 = 16;

pub(crate) struct Machine<'p> {
    pub prog: &'p CompiledProgram,
    pub limits: &'p Limits,
    pub budgeted: bool,
    pub(super) remaining: u64,
    /// Charges take the slow path once `remaining` would fall below `mark`: 0, or, while a
    /// long-run hook is pending, the point where it runs.
    pub(super) mark: u64,
    long_run: Option<&'p dyn Fn() -> LongRunNext>,
    nesting: u32,
    stack_base: usize,
    /// The stack the evaluation may use from `stack_base` ([`stack_allowance`]).
    stack_allowance: usize,
    /// A default failed: its failure is never blamed on a host argument.
    pub default_failed: bool,
    /// Names the host used that the program does not hold, interned for this evaluation.
    extra_names: std::cell::RefCell<std::collections::HashSet<Name, std::hash::BuildHasherDefault<super::compiled::NameHasher>>>,
    /// Work done beyond the node evaluations: values copied, allocated, read, written or
    /// compared, fields scanned, and 64-byte units of text built (see [`super::work`]).
    pub work: u64,
    /// Of `work`, the units of copies no charge pays for (see [`super::work`]).
    pub free_copies: u64,
    /// Bytes of values allocated so far (never given back within the call), against
    /// `Limits::max_memory`.
    allocated: u64,
    /// Interned names of types the program does not declare and their `<Type>.Update`, by the
    /// type name's address: each formatted once per evaluation (the key is held, so its address
    /// is not reused).
    update_names: std::collections::HashMap<usize, (Name, Name), std::hash::BuildHasherDefault<super::compiled::NameHasher>>,
    /// Emptied vectors the evaluation reuses.
    spares: Spares,
    /// Whether the list written last held scalars only (set as a list's writing ends, so after
    /// a result is written it describes the result when that is a list).
    pub wrote_scalar_list: bool,
    /// While a component's output is written: the handlers written so far, numbered by their
    /// tokens (`h<generation>-<n>`, n from 1 in write order).
    pub tokens: Option<Tokens>,
    /// Installed only for a profiled call (see [`super::profile`]): every charge then takes the
    /// slow path, which records it.
    pub(super) profiler: Option<Box<super::profile::Profiler>>,
}

/// The handlers a rendered output holds, in the order their tokens number them.
#[derive(Default)]
pub(crate) struct Tokens {
    pub generation: u64,
    pub handlers: Vec<Rc<Handler>>,
}

/// Emptied vectors, kept to be filled again: construction inputs and call frames. They hold
/// no values (see [`Machine::recycle_fields`] and [`Machine::recycle_frame`]).
#[derive(Default)]
struct Spares {
    fields: Vec<Vec<(Name, Value)>>,
    frames: Vec<Frame>,
}

/// Construction inputs and frames kept at most (each of a bounded capacity).
const SPARES_KEPT: usize = 16;

thread_local! {
    /// The spares kept between evaluations on this thread, so a small call reuses the vectors
    /// the previous call gave back instead of allocating its own.
    static SPARES: Cell<Spares> = const { Cell::new(Spares { fields: Vec::new(), frames: Vec::new() }) };
}

impl Drop for Machine<'_> {
    fn drop(&mut self) {
        let spares = std::mem::take(&mut self.spares);
        let _ = SPARES.try_with(|kept| {
            let before = kept.replace(spares);
            // What the thread held is empty unless an evaluation ran inside this one (and gave
            // back its own): an empty `Spares` owns no memory and needs no drop.
            if before.fields.capacity() == 0 && before.frames.capacity() == 0 {
                std::mem::forget(before);
            }
        });
    }
}

impl<'p> Machine<'p> {
    pub fn new(prog: &'p CompiledProgram, limits: &'p Limits) -> Self {
        let stack_base = stack_position();
        Machine {
            prog,
            limits,
            budgeted: limits.max_operations.is_some(),
            remaining: limits.max_operations.unwrap_or(u64::MAX),
            mark: 0,
            long_run: None,
            nesting: 0,
            stack_base,
            stack_allowance: stack_allowance(limits.max_stack_bytes, stack_base),
            default_failed: false,
            extra_names: Default::default(),
            work: 0,
            free_copies: 0,
            allocated: 0,
            update_names: Default::default(),
            spares: SPARES.try_with(Cell::take).unwrap_or_default(),
            wrote_scalar_list: false,
            tokens: None,
            profiler: None,
        }
    }

    /// Runs `hook` when `after` more operations have been charged (whatever the budget; also
    /// with none), and again as often as it asks (see [`LongRunNext`]). Bindings use it to
    /// release their interpreter lock for long evaluations only, and to poll for signals; the
    /// hook runs from a charge, never while a host value is being read or written.
    pub fn on_long_run(&mut self, after: u64, hook: &'p dyn Fn() -> LongRunNext) {
        self.set_mark(self.remaining.saturating_sub(after));
        self.long_run = Some(hook);
    }

    /// Drops a pending long-run hook: from here on (writing the result) it never runs, so a
    /// binding's lock is never released while host objects are being built.
    pub fn stop_long_run(&mut self) {
        self.long_run = None;
        self.set_mark(0);
    }

    /// The slow path of a charge: runs a pending long-run hook and sets the next mark from its
    /// answer (`Ok(true)`: charges go on), tells the charge to fail for its budget (`Ok(false)`:
    /// no hook was pending), or fails with `nx-ir-interrupted` when the hook stops the
    /// evaluation. The mark is never above `remaining`; a charge past it keeps it so (see
    /// [`Machine::keep_mark`]).
    #[cold]
    #[inline(never)]
    fn past_mark(&mut self, cx: Cx, node: Option<u32>) -> IrResult<bool> {
        let Some(hook) = self.long_run else { return Ok(false) };
        self.mark = 0;
        match hook() {
            LongRunNext::Again(after) => self.mark = self.remaining.saturating_sub(after.max(1)),
            LongRunNext::Done => self.long_run = None,
            LongRunNext::Stop => {
                self.long_run = None;
                return Err(self.error(cx, node, codes::INTERRUPTED, "The host interrupted the evaluation."));
            }
        }
        Ok(true)
    }

    /// After a slow charge: a mark set above what remains comes down to it, so that
    /// `remaining - mark` never wraps (the next charge takes the slow path and runs the hook).
    #[inline(always)]
    fn keep_mark(&mut self) {
        self.mark = self.mark.min(self.remaining);
    }

    /// Counts `units` of work (a plain add; see [`super::work`]).
    #[inline(always)]
    pub fn tally(&mut self, units: u64) {
        self.work = self.work.wrapping_add(units);
    }

    /// Counts `bytes` of values allocated, failing with `nx-ir-resource-limit` (limit `memory`)
    /// once the call's total passes `Limits::max_memory`.
    #[inline(always)]
    pub fn allocate(&mut self, cx: Cx, node: Option<u32>, bytes: u64) -> IrResult<()> {
        self.allocated = self.allocated.saturating_add(bytes);
        if self.allocated > self.limits.max_memory {
            return Err(self.memory_exhausted(cx, node));
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn memory_exhausted(&self, cx: Cx, node: Option<u32>) -> IrError {
        let limit = self.limits.max_memory;
        self.limit_fail(cx, node, "memory", limit, format!("The evaluation allocated more than {limit} bytes of values."))
    }

    /// A copy of `fields` fields or slots the charges leave free (`apply`, `merge`, `changed`, a
    /// handler's captured frame) that allocated `bytes`: tallied, and counted against the memory
    /// ceiling.
    pub fn copied(&mut self, cx: Cx, node: u32, fields: usize, bytes: u64) -> IrResult<()> {
        self.unpaid(cx, Some(node), fields as u64 + 1, FIELD_BYTES + bytes)
    }

    /// A copy of a frame of `slots` slots no charge pays for (a handler's capture, made or run
    /// over): as [`Machine::copied`], 16 bytes a slot.
    pub fn copied_frame(&mut self, cx: Cx, node: u32, slots: usize) -> IrResult<()> {
        self.copied(cx, node, slots, ITEM_BYTES * slots as u64)
    }

    /// `units` of work no charge pays for, which allocated `bytes`: tallied, counted apart as
    /// free copies, and counted against the memory ceiling (which bounds them).
    fn unpaid(&mut self, cx: Cx, node: Option<u32>, units: u64, bytes: u64) -> IrResult<()> {
        self.tally(units);
        self.free_copies += units;
        self.allocate(cx, node, bytes)
    }

    /// Whether names `a` and `b` are the same: interned names are equal exactly when they are
    /// one `Arc`; a text compare only for names of equal length that are not (tallied).
    pub fn same_name(&mut self, a: &Name, b: &Name) -> bool {
        if Name::ptr_eq(a, b) {
            return true;
        }
        if a.len() != b.len() {
            return false;
        }
        self.tally(1 + a.len() as u64 / 64);
        a == b
    }

    /// The interned `<type_name>.Update`: the program's, found by address, for a type it
    /// declares; otherwise formatted once per evaluation and type.
    pub fn update_name(&mut self, type_name: &Name) -> Name {
        self.tally(1);
        if let Some(name) = self.prog.update_names.get(&super::compiled::name_key(type_name)) {
            return Name::clone(name);
        }
        let key = super::compiled::name_key(type_name);
        if let Some((_, name)) = self.update_names.get(&key) {
            return Name::clone(name);
        }
        self.tally(1 + type_name.len() as u64 / 32);
        let name = self.prog_name(&format!("{type_name}.Update"));
        self.update_names.insert(key, (Name::clone(type_name), Name::clone(&name)));
        name
    }

    /// Whether `update` names the update record of `target` (`<target>.Update`).
    pub fn is_update_of(&mut self, update: &Name, target: &Name) -> bool {
        let expected = self.update_name(target);
        self.same_name(update, &expected)
    }

    /// Operations charged so far (only meaningful with a budget).
    pub fn used(&self) -> Option<u64> {
        self.limits.max_operations.map(|budget| budget.saturating_sub(self.remaining))
    }

    // ---- diagnostics ------------------------------------------------------------------------

    pub fn error(&self, cx: Cx, node: Option<u32>, code: &'static str, message: impl Into<String>) -> IrError {
        let mut error = IrError::new(code, message);
        if let Some(module) = self.prog.modules.get(cx.module as usize) {
            if module.decls.get(cx.decl as usize).is_some() {
                error.diagnostics[0].declaration = Some(self.prog.qualified(cx.module, cx.decl).to_string());
            }
            if let Some(Some((start, end))) = node.and_then(|n| module.node_spans.get(n as usize)) {
                error.diagnostics[0].source =
                    Some(SourceSpan { identity: module.identity.to_string(), start: *start, end: *end });
            }
        }
        error
    }

    pub fn fail<T>(&self, cx: Cx, node: u32, code: &'static str, message: impl Into<String>) -> IrResult<T> {
        Err(self.error(cx, Some(node), code, message))
    }

    /// A literal the image holds but no value can represent (a bigint outside 64 bits) fails
    /// where its node is read, as the reference runtimes fail a node they cannot decode: where a
    /// call reads its callee's node or an arm its pattern's, before the node is charged; and
    /// naming the declaration but no source span.
    #[cold]
    fn bad_literal<T>(&self, cx: Cx, message: &str) -> IrResult<T> {
        Err(self.error(cx, None, codes::MALFORMED, message))
    }

    fn limit_fail(&self, cx: Cx, node: Option<u32>, name: &'static str, value: u64, message: String) -> IrError {
        let mut error = limit_error(name, value, message);
        let located = self.error(cx, node, codes::RESOURCE_LIMIT, "");
        error.diagnostics[0].declaration = located.diagnostics[0].declaration.clone();
        error.diagnostics[0].source = located.diagnostics[0].source.clone();
        error
    }

    #[cold]
    #[inline(never)]
    fn budget_exhausted(&self, cx: Cx, node: Option<u32>) -> IrError {
        let budget = self.limits.max_operations.unwrap_or(u64::MAX);
        self.limit_fail(cx, node, "maxOperations", budget, format!("The evaluation exceeded its budget of {budget} operations."))
    }

    // ---- charges ----------------------------------------------------------------------------

    /// Charges `amount`, failing before the work when the budget does not cover it.
    #[inline]
    pub fn charge(&mut self, cx: Cx, node: Option<u32>, amount: u64) -> IrResult<()> {
        if self.remaining - self.mark < amount {
            return self.charge_slow(cx, node, amount, Charge::Amount);
        }
        self.remaining -= amount;
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn charge_slow(&mut self, cx: Cx, node: Option<u32>, amount: u64, how: Charge) -> IrResult<()> {
        if self.profiler.is_some() {
            return self.profiled_charge(cx, node, amount, how);
        }
        if !(self.past_mark(cx, node)? && self.remaining >= amount) {
            return Err(self.budget_exhausted(cx, node));
        }
        self.remaining -= amount;
        self.keep_mark();
        Ok(())
    }

    /// Charges 1, `count` times, at `cx` (no span): at once when all fit the fast path, else one
    /// at a time, so a budget that runs out fails at the very charge it would have alone.
    #[inline]
    pub fn charge_each(&mut self, cx: Cx, count: u64) -> IrResult<()> {
        if count <= self.fast_room() {
            self.remaining -= count;
            return Ok(());
        }
        for _ in 0..count {
            self.charge(cx, None, 1)?;
        }
        Ok(())
    }

    /// Charges 1 when that takes no slow path; `false` (nothing charged) when
    /// [`Machine::charge`] must decide.
    #[inline(always)]
    pub fn charge_one(&mut self) -> bool {
        if self.remaining > self.mark {
            self.remaining -= 1;
            true
        } else {
            false
        }
    }

    /// How many charges of 1 in a row take the fast path of [`Machine::charge_one`] from here.
    #[inline(always)]
    pub fn fast_room(&self) -> u64 {
        self.remaining.saturating_sub(self.mark)
    }

    /// Takes `count` charges of 1 counted apart while they fit in [`Machine::fast_room`], each
    /// with its unit of work.
    #[inline(always)]
    pub fn take_fast(&mut self, count: u64) {
        debug_assert!(count <= self.fast_room());
        self.remaining -= count;
        self.tally(count);
    }

    /// Whether the native stack is within its budget.
    #[inline]
    pub fn stack_ok(&self) -> bool {
        stack_position().abs_diff(self.stack_base) <= self.stack_allowance
    }

    #[cold]
    pub fn stack_error(&self, cx: Cx, node: Option<u32>) -> IrError {
        let bytes = self.stack_allowance as u64;
        self.limit_fail(cx, node, "maxStackBytes", bytes, format!("The evaluation used more than {bytes} bytes of stack."))
    }

    /// The stack budget ran out while a value was walked (checked against a type, compared or
    /// written for the host): a limit of the walk, which names no declaration.
    #[cold]
    pub fn value_stack_error(&self) -> IrError {
        let bytes = self.stack_allowance as u64;
        limit_error(
            "maxStackBytes",
            bytes,
            format!("Walking a value would take the call past the {bytes} bytes of stack it may use."),
        )
    }

    /// The charge of evaluating node `index`, with the nesting and stack checks its evaluation
    /// makes first, without entering its level (a leaf read in place).
    #[inline(always)]
    pub(super) fn charge_node(&mut self, cx: Cx, index: u32) -> IrResult<()> {
        // The stack is measured every 8 levels of nesting: one level uses a bounded amount, so
        // the guard overshoots by a few KiB at most.
        if self.remaining <= self.mark
            || self.nesting >= MAX_EXPRESSION_NESTING
            || (self.nesting & 7 == 0 && !self.stack_ok())
        {
            return self.node_slow(cx, index);
        }
        self.remaining -= 1;
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn node_slow(&mut self, cx: Cx, index: u32) -> IrResult<()> {
        if self.profiler.is_some() {
            return self.profiled_charge(cx, Some(index), 1, Charge::Node);
        }
        if self.remaining <= self.mark && self.remaining > 0 {
            self.past_mark(cx, Some(index))?;
        }
        if self.remaining == 0 || self.nesting >= MAX_EXPRESSION_NESTING || !self.stack_ok() {
            return Err(self.node_limit(cx, index));
        }
        self.remaining -= 1;
        self.keep_mark();
        Ok(())
    }

    /// The charge of node `index` where it is read without being evaluated, as the reference
    /// runtimes charge it there: one operation, with no nesting or stack check (a callee that
    /// names a function, a pattern that names a union case with fields). A profile counts it as
    /// the node's evaluation.
    #[inline]
    pub(super) fn charge_in_place(&mut self, cx: Cx, index: u32) -> IrResult<()> {
        if self.remaining <= self.mark {
            return self.charge_slow(cx, Some(index), 1, Charge::InPlace);
        }
        self.remaining -= 1;
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn node_limit(&self, cx: Cx, index: u32) -> IrError {
        if self.remaining == 0 {
            return self.budget_exhausted(cx, Some(index));
        }
        if self.nesting >= MAX_EXPRESSION_NESTING {
            return self.limit_fail(
                cx,
                Some(index),
                "maxExpressionNesting",
                MAX_EXPRESSION_NESTING as u64,
                format!("Expressions nest more than {MAX_EXPRESSION_NESTING} deep."),
            );
        }
        self.stack_error(cx, Some(index))
    }

    // ---- nodes ------------------------------------------------------------------------------

    /// Evaluates node `index` of `cx.module`.
    #[inline(always)]
    pub fn eval(&mut self, cx: Cx, frame: &mut Frame, index: u32) -> IrResult<Value> {
        self.charge_node(cx, index)?;
        // A local slot holding a scalar, or an integer literal, is read in place: a leaf
        // evaluates nothing below it, so entering its nesting level would check nothing.
        if let Some(node) = self.node_at(cx, index) {
            match node {
                CNode::Slot { slot, .. } => match frame.get(*slot as usize) {
                    Some(Some(Value::Int(i))) => return Ok(Value::Int(*i)),
                    Some(Some(Value::Bool(b))) => return Ok(Value::bool(*b)),
                    _ => {}
                },
                CNode::Int(i) => return Ok(Value::Int(*i)),
                CNode::Str(s) => return Ok(Value::Str(s.clone())),
                _ => {}
            }
        }
        self.eval_nested(cx, frame, index)
    }

    /// A node below which evaluation nests: one level deeper while it runs.
    #[inline(never)]
    fn eval_nested(&mut self, cx: Cx, frame: &mut Frame, index: u32) -> IrResult<Value> {
        self.nesting += 1;
        let result = self.eval_node(cx, frame, index);
        self.nesting -= 1;
        result
    }

    /// An integer operator that cannot fail over two integer leaves (local slots or literals),
    /// computed in place: the same two operand charges and checks the general path makes,
    /// without evaluating the operands. `None` when anything would take a slow path there.
    #[inline(always)]
    fn leaf_binary(&mut self, cx: Cx, frame: &Frame, op: BinOp, lhs: u32, rhs: u32) -> Option<Value> {
        // Evaluating the operator's node has entered its level: its operands are at this one.
        let level = self.nesting;
        let prog: &'p CompiledProgram = self.prog;
        let nodes = &prog.modules.get(cx.module as usize)?.nodes;
        let (a, b) = (Leaf::read(nodes, frame, lhs)?, Leaf::read(nodes, frame, rhs)?);
        if self.remaining - self.mark < 2 || level >= MAX_EXPRESSION_NESTING || (level & 7 == 0 && !self.stack_ok()) {
            return None;
        }
        let value = match (a, b) {
            (Leaf::Int(a), Leaf::Int(b)) => match op {
                BinOp::Add => Value::Int(a.wrapping_add(b)),
                BinOp::Sub => Value::Int(a.wrapping_sub(b)),
                BinOp::Mul => Value::Int(a.wrapping_mul(b)),
                BinOp::Lt => Value::bool(a < b),
                BinOp::Le => Value::bool(a <= b),
                BinOp::Gt => Value::bool(a > b),
                BinOp::Ge => Value::bool(a >= b),
                // A zero divisor takes the general path, which fails the call.
                BinOp::Mod | BinOp::IMod if b != 0 => Value::Int(a.wrapping_rem(b)),
                BinOp::IDiv if b != 0 => Value::Int(a.wrapping_div(b)),
                _ => return None,
            },
            // A float on either side: both as floats, as `binary` takes them.
            (a, b) => {
                let (a, b) = (a.float(), b.float());
                match op {
                    BinOp::Add => Value::Float(a + b),
                    BinOp::Sub => Value::Float(a - b),
                    BinOp::Mul => Value::Float(a * b),
                    BinOp::Lt => Value::bool(a < b),
                    BinOp::Le => Value::bool(a <= b),
                    BinOp::Gt => Value::bool(a > b),
                    BinOp::Ge => Value::bool(a >= b),
                    _ => return None,
                }
            }
        };
        self.remaining -= 2;
        Some(value)
    }

    /// A loop body that is a binary operator, read once before the loop.
    fn binary_node(&self, cx: Cx, index: u32) -> Option<(BinOp, u32, u32)> {
        match self.node_at(cx, index)? {
            CNode::Binary { op, lhs, rhs } => Some((*op, *lhs, *rhs)),
            _ => None,
        }
    }

    /// [`Machine::eval`] of a binary operator node (`binary_node`): its operands read in place
    /// when they are integer leaves, otherwise the general path.
    #[inline(always)]
    fn eval_binary_body(&mut self, cx: Cx, frame: &mut Frame, index: u32, op: BinOp, lhs: u32, rhs: u32) -> IrResult<Value> {
        self.charge_node(cx, index)?;
        if op == BinOp::Concat {
            if let Some(text) = self.concat_literal_int(cx, frame, index, lhs, rhs) {
                return text;
            }
        }
        self.nesting += 1;
        let leaf = self.leaf_binary(cx, frame, op, lhs, rhs);
        self.nesting -= 1;
        match leaf {
            Some(value) => Ok(value),
            None => self.eval_nested(cx, frame, index),
        }
    }

    fn node(&self, cx: Cx, index: u32) -> IrResult<&'p CNode> {
        self.node_at(cx, index)
            .ok_or_else(|| self.error(cx, None, codes::MALFORMED, format!("NX IR image is malformed: node {index} does not exist.")))
    }

    /// Node `index` of the module at `cx`, if there is one (read without a charge or a failure).
    #[inline(always)]
    fn node_at(&self, cx: Cx, index: u32) -> Option<&'p CNode> {
        let prog: &'p CompiledProgram = self.prog;
        prog.modules.get(cx.module as usize).and_then(|m| m.nodes.get(index as usize))
    }

    fn eval_node(&mut self, cx: Cx, frame: &mut Frame, index: u32) -> IrResult<Value> {
        match self.node(cx, index)? {
            CNode::Bool(b) => Ok(Value::bool(*b)),
            CNode::Int(i) => Ok(Value::Int(*i)),
            CNode::Float(f) => Ok(Value::Float(*f)),
            CNode::Str(s) => Ok(Value::Str(s.clone())),
            CNode::BadLiteral(message) => self.bad_literal(cx, message),
            CNode::Slot { slot, name } => match frame.get(*slot as usize) {
                Some(Some(value)) => Ok(value.clone()),
                _ => self.fail(cx, index, codes::SLOT, format!("Local slot '{name}' was not bound.")),
            },
            CNode::Binary { op, lhs, rhs } => self.eval_binary(cx, frame, index, *op, *lhs, *rhs),
            CNode::Neg(operand) => match self.eval(cx, frame, *operand)? {
                Value::Int(i) => Ok(Value::Int(i.wrapping_neg())),
                Value::Float(f) => Ok(Value::Float(-f)),
                _ => self.fail(cx, index, codes::NUMBER, "Operator 'neg' requires a numeric operand."),
            },
            CNode::Not(operand) => {
                let value = self.eval(cx, frame, *operand)?;
                Ok(Value::bool(!self.boolean(cx, index, &value, "not")?))
            }
            CNode::Reference(target) => self.eval_reference(cx, index, target),
            CNode::Text { operand, form } => {
                let value = self.eval(cx, frame, *operand)?;
                self.text(cx, index, &value, *form)
            }
            CNode::If { cond, then, otherwise } => {
                let condition = self.eval(cx, frame, *cond)?;
                if self.boolean(cx, index, &condition, "if condition")? {
                    self.eval(cx, frame, *then)
                } else if let Some(otherwise) = otherwise {
                    self.eval(cx, frame, *otherwise)
                } else {
                    Ok(Value::empty())
                }
            }
            CNode::IfIs { scrutinee, arms, otherwise } => self.eval_if_is(cx, frame, *scrutinee, arms, *otherwise),
            CNode::Array(items) => {
                let items = self.items(cx, frame, index, items)?;
                Ok(Value::seq(items))
            }
            CNode::For { item, index: index_slot, iterable, body, range } => {
                if *range {
                    self.eval_for_range(cx, frame, index, *item, *index_slot, *iterable, *body)
                } else {
                    self.eval_for(cx, frame, index, *item, *index_slot, *iterable, *body)
                }
            }
            CNode::Member { base, name, optional } => {
                // A member of a record in a local slot is read where the record lies, with the
                // slot's charge `eval` makes (a leaf: nothing below it to nest).
                if let Some(CNode::Slot { slot, .. }) = self.node_at(cx, *base) {
                    if let Some(Some(record @ Value::Record(_))) = frame.get(*slot as usize) {
                        self.charge_node(cx, *base)?;
                        return self.member(cx, index, record, name);
                    }
                }
                let base = self.eval(cx, frame, *base)?;
                if *optional {
                    let receiver = match &base {
                        Value::Seq(items) if items.is_empty() => return Ok(Value::empty()),
                        Value::Seq(items) if items.len() == 1 => items[0].clone(),
                        other => other.clone(),
                    };
                    self.member(cx, index, &receiver, name)
                } else {
                    self.member(cx, index, &base, name)
                }
            }
            CNode::Exists(operand) => Ok(Value::bool(!self.eval(cx, frame, *operand)?.is_empty())),
            CNode::Coalesce { left, right } => {
                let left = self.eval(cx, frame, *left)?;
                if left.is_empty() {
                    self.eval(cx, frame, *right)
                } else {
                    Ok(left)
                }
            }
            CNode::Call { callee, args } => self.call(cx, frame, index, *callee, args),
            CNode::NamedCall { callee, args, spread } => self.eval_named_call(cx, frame, index, *callee, args, *spread),
            CNode::Intrinsic { op, args, order_at } => self.eval_intrinsic(cx, frame, index, *op, args, order_at),
            CNode::Record { target, name, props, content, spread } => {
                self.eval_record(cx, frame, index, target, name, (props, *spread), content)
            }
            CNode::UnionCase { target, name, case, props, content, spread, found } => {
                self.eval_union_case(cx, frame, index, target, (name, case, *found), (props, *spread), content)
            }
            CNode::Element { tag, props, content, spread } => self.eval_element(cx, frame, index, tag, (props, *spread), content),
            CNode::Component { target, name, props, content, spread } => {
                self.eval_component(cx, frame, index, target, name, (props, *spread), content)
            }
            CNode::StandardMath { op, args } => self.eval_math(cx, frame, index, *op, args),
            CNode::StandardColor { op, args } => self.eval_color(cx, frame, index, *op, args),
            CNode::Check { operand, interval, site } => self.eval_check(cx, frame, index, *operand, interval.as_ref(), site),
            // A pattern list tests an interval node without evaluating it (the reader refuses
            // one anywhere else).
            CNode::Interval(_) => self.fail(
                cx,
                index,
                codes::MALFORMED,
                "NX IR image is malformed: an 'interval' node was evaluated outside a pattern list.",
            ),
            CNode::ActionHandler { component, emit, action, binding: _, owner, body: _ } => {
                self.eval_action_handler(cx, frame, index, (component, action, owner.as_ref()), emit)
            }
        }
    }

    // Arms of `eval_node` kept out of it: each level of nesting pays for `eval_node`'s frame, so
    // what only some nodes need is in frames of its own (docs/runtime-differences.md).

    #[inline(never)]
    fn eval_if_is(&mut self, cx: Cx, frame: &mut Frame, scrutinee: u32, arms: &[(Box<[u32]>, u32)], otherwise: Option<u32>) -> IrResult<Value> {
        let scrutinee = self.eval(cx, frame, scrutinee)?;
        for (patterns, body) in arms.iter() {
            for pattern in patterns.iter() {
                let matched = match self.node(cx, *pattern)? {
                    CNode::Interval(interval) => self.interval_pattern(cx, *pattern, interval.as_ref(), &scrutinee)?,
                    node => {
                        let value = self.pattern(cx, frame, *pattern, node)?;
                        self.pattern_matches(cx, *pattern, &scrutinee, &value)?
                    }
                };
                if matched {
                    return self.eval(cx, frame, *body);
                }
            }
        }
        match otherwise {
            Some(otherwise) => self.eval(cx, frame, otherwise),
            None => Ok(Value::empty()),
        }
    }

    #[inline(never)]
    fn eval_named_call(&mut self, cx: Cx, frame: &mut Frame, index: u32, callee: u32, args: &[(Name, u32)], spread: bool) -> IrResult<Value> {
        let function = self.callee(cx, frame, callee, index, "named call")?;
        let fields = if spread {
            self.spread_properties(cx, frame, args)?
        } else {
            let mut fields: Vec<(Name, Value)> = Vec::with_capacity(args.len());
            for (name, node) in args.iter() {
                let value = self.eval(cx, frame, *node)?;
                set_field(&mut fields, Name::clone(name), value);
            }
            fields
        };
        with_places(self.params(function).len(), |values| {
            self.by_name(function, &fields, values);
            self.invoke(function, values, cx.depth + 1, false)
        })
        .map_err(|error| self.math_call_origin(cx, index, error))
    }

    #[inline(never)]
    fn eval_element(&mut self, cx: Cx, frame: &mut Frame, index: u32, tag: &Name, (props, spread): Props<'_>, content: &[u32]) -> IrResult<Value> {
        let mut fields = self.properties(cx, frame, props, spread)?;
        let mut items = self.items(cx, frame, index, content)?;
        match items.len() {
            0 => {}
            1 => set_field(&mut fields, self.prog_name("content"), items.pop().unwrap_or_else(Value::empty)),
            _ => set_field(&mut fields, self.prog_name("content"), Value::seq(items)),
        }
        Ok(Value::Record(Record::new_rc(Some(Name::clone(tag)), fields)))
    }

    #[inline(never)]
    fn eval_action_handler(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        (component, action, owner): (&Target, &Target, Option<&Target>),
        emit: &Name,
    ) -> IrResult<Value> {
        let (cm, cd) = self.resolve(cx, index, component)?;
        let (am, ad) = self.resolve(cx, index, action)?;
        if let Some(owner) = owner {
            self.resolve(cx, index, owner)?;
        }
        let prog = self.prog;
        let component_key = Name::clone(prog.qualified(cm, cd));
        // The capture is a copy of the whole frame, up to its highest bound slot, which no
        // charge pays for (a handler costs what any node does): counted as the update
        // intrinsics' copies are, against the memory ceiling, so a loop making handlers over a
        // frame grown to thousands of slots stops at the ceiling instead of copying it each time.
        self.copied_frame(cx, index, frame.len())?;
        Ok(Value::Handler(Rc::new(Handler {
            module: cx.module,
            decl: cx.decl,
            node: index,
            component_key,
            emit: Name::clone(emit),
            action: Name::clone(&prog.decl(am, ad).name),
            capture: frame.clone(),
        })))
    }

    /// The one `Name` for `text` in this evaluation: the program's, or one interned for the
    /// evaluation (a name only the host uses), so names compare by pointer.
    pub fn prog_name(&self, text: &str) -> Name {
        if let Some(name) = self.prog.names.get(text) {
            return name;
        }
        let mut extra = self.extra_names.borrow_mut();
        if let Some(name) = extra.get(text) {
            return Name::clone(name);
        }
        let name = Name::counted(text);
        extra.insert(name.clone());
        name
    }

    /// The boolean `value` is, or the failure of a condition `what` that is not one. Inlined: as
    /// a call, its arguments passed in memory were read back whole after narrower stores (a
    /// stall on every condition tested).
    #[inline(always)]
    pub fn boolean(&self, cx: Cx, node: u32, value: &Value, what: &str) -> IrResult<bool> {
        match value {
            Value::Bool(b) => Ok(*b),
            other => self.not_boolean(cx, node, other, what),
        }
    }

    #[cold]
    #[inline(never)]
    fn not_boolean(&self, cx: Cx, node: u32, value: &Value, what: &str) -> IrResult<bool> {
        self.fail(cx, node, codes::TYPE, format!("Expected a boolean for '{what}', got {}.", value.describe()))
    }

    pub fn resolve(&self, cx: Cx, node: u32, target: &Target) -> IrResult<(u32, u32)> {
        match target {
            Target::Decl { module, decl } => Ok((*module, *decl)),
            Target::Missing(message) => self.fail(cx, node, codes::REFERENCE, message.to_string()),
        }
    }

    /// Evaluates nodes as the items of one sequence, charging each placement to `node`.
    pub fn items(&mut self, cx: Cx, frame: &mut Frame, node: u32, nodes: &[u32]) -> IrResult<Vec<Value>> {
        let mut items = Vec::with_capacity(nodes.len());
        for item in nodes {
            let value = self.eval(cx, frame, *item)?;
            self.place(cx, node, &mut items, value)?;
        }
        Ok(items)
    }

    #[inline(always)]
    pub fn place(&mut self, cx: Cx, node: u32, items: &mut Vec<Value>, value: Value) -> IrResult<()> {
        match value {
            Value::Seq(elements) => {
                self.charge(cx, Some(node), elements.len() as u64)?;
                self.tally(elements.len() as u64);
                self.allocate(cx, Some(node), ITEM_BYTES * elements.len() as u64)?;
                match Rc::try_unwrap(elements) {
                    Ok(owned) => items.extend(owned.into_values()),
                    Err(shared) => items.extend(shared.iter().cloned()),
                }
            }
            other => {
                self.charge_item(cx, node)?;
                items.push(other);
            }
        }
        Ok(())
    }

    /// The charge, work and memory of one item placed (no list spliced in) at node `node`.
    #[inline(always)]
    fn charge_item(&mut self, cx: Cx, node: u32) -> IrResult<()> {
        if !self.charge_one() {
            self.charge(cx, Some(node), 1)?;
        }
        self.tally(1);
        self.allocate(cx, Some(node), ITEM_BYTES)
    }

    /// Written properties evaluated in order into fields (a later one of a name replaces an
    /// earlier one in its place); with `spread`, some are spreads ([`Machine::spread_properties`]).
    pub fn properties(&mut self, cx: Cx, frame: &mut Frame, props: &[(Name, u32)], spread: bool) -> IrResult<Vec<(Name, Value)>> {
        if spread {
            return self.spread_properties(cx, frame, props);
        }
        self.allocate(cx, None, FIELD_BYTES * props.len() as u64)?;
        let mut fields = self.spare_fields();
        fields.reserve(props.len());
        if props.len() > INDEXED_FIELDS {
            // Many properties: set through an index of their names, not a scan per property.
            self.tally(2 * props.len() as u64);
            for (name, node) in props {
                let value = self.eval(cx, frame, *node)?;
                fields.push((Name::clone(name), value));
            }
            return Ok(settle(fields));
        }
        self.tally(props.len() as u64 * (props.len() as u64 + 1));
        for (name, node) in props {
            let value = self.eval(cx, frame, *node)?;
            set_field(&mut fields, Name::clone(name), value);
        }
        Ok(fields)
    }

    /// [`Machine::properties`] of a list holding spreads (schema 6): a spread's value must be a
    /// record, whose fields are set in their order as if each were written there; anything else
    /// fails `nx-ir-type` at the spread's node.
    #[inline(never)]
    pub fn spread_properties(&mut self, cx: Cx, frame: &mut Frame, props: &[(Name, u32)]) -> IrResult<Vec<(Name, Value)>> {
        let spread = Name::clone(&self.prog.spread);
        // Every property and spread field in order, repeats settled once at the end (in time
        // linear in their number, however many a spread brings).
        let mut fields = self.spare_fields();
        for (name, node) in props {
            let value = self.eval(cx, frame, *node)?;
            if !Name::ptr_eq(name, &spread) {
                self.tally(2);
                fields.push((Name::clone(name), value));
                continue;
            }
            let Value::Record(bag) = value else {
                return self.fail(cx, *node, codes::TYPE, "Expected a property binding bag.");
            };
            self.tally(2 * (bag.fields.len() as u64 + 1));
            self.allocate(cx, Some(*node), FIELD_BYTES * bag.fields.len() as u64)?;
            fields.extend(bag.fields.iter().map(|(name, value)| (Name::clone(name), value.clone())));
        }
        Ok(settle(fields))
    }

    /// An `nx-math-*` diagnostic that comes out of a call with no source gets the call node's
    /// (as the reference runtime reports a math failure inside a function without spans).
    #[cold]
    #[inline(never)]
    fn math_call_origin(&self, cx: Cx, call: u32, mut error: IrError) -> IrError {
        if error.diagnostics.iter().any(|d| d.code.starts_with("nx-math-") && d.source.is_none()) {
            let source = self.error(cx, Some(call), codes::CALL, "").diagnostics.swap_remove(0).source;
            for diagnostic in error.diagnostics.iter_mut() {
                if diagnostic.code.starts_with("nx-math-") && diagnostic.source.is_none() {
                    diagnostic.source.clone_from(&source);
                }
            }
        }
        error
    }

    /// An empty fields vector: one given back earlier when there is one.
    #[inline]
    pub fn spare_fields(&mut self) -> Vec<(Name, Value)> {
        self.spares.fields.pop().unwrap_or_default()
    }

    /// Gives a construction's input back for the next one to fill (a few are kept).
    #[inline]
    pub fn recycle_fields(&mut self, mut fields: Vec<(Name, Value)>) {
        if self.spares.fields.len() < SPARES_KEPT && fields.capacity() <= 64 {
            fields.clear();
            self.spares.fields.push(fields);
        }
    }

    /// Gives a call's frame back for the next call to fill (a few are kept).
    #[inline]
    fn recycle_frame(&mut self, mut frame: Frame) {
        if self.spares.frames.len() < SPARES_KEPT && frame.capacity() <= 256 {
            frame.clear();
            self.spares.frames.push(frame);
        }
    }

    #[inline(always)]
    pub fn bind(&mut self, cx: Cx, frame: &mut Frame, slot: u32, value: Value) -> IrResult<()> {
        let slot = slot as usize;
        if slot == frame.len() && slot < frame.capacity() {
            // The next slot, as parameters are bound: added without growing.
            frame.push(Some(value));
            return Ok(());
        }
        if let Some(place) = frame.get_mut(slot) {
            // A scalar replaced in place has nothing to drop.
            if let Some(Value::Int(_) | Value::Bool(_) | Value::Float(_)) | None = place {
                // Forgetting a scalar (or nothing) leaks nothing and skips the drop call.
                std::mem::forget(place.replace(value));
            } else {
                *place = Some(value);
            }
            return Ok(());
        }
        self.bind_grow(cx, frame, slot, value)
    }

    #[inline(never)]
    fn bind_grow(&mut self, cx: Cx, frame: &mut Frame, slot: usize, value: Value) -> IrResult<()> {
        if slot >= MAX_SLOTS {
            return Err(IrError::new(codes::SLOT, format!("Local slot {slot} is past the {MAX_SLOTS} slots a frame may hold.")));
        }
        if frame.len() <= slot {
            // The slots a bind skips over are made too, unbound, and no charge pays for them:
            // counted as a copy is, against the memory ceiling (16 bytes a slot), so calls that
            // each bind a slot in the tens of thousands stop there instead of filling and
            // dropping that many slots a call.
            let skipped = (slot - frame.len()) as u64;
            if skipped > 0 {
                self.unpaid(cx, None, skipped, ITEM_BYTES * skipped)?;
            }
            frame.resize(slot + 1, None);
        }
        frame[slot] = Some(value);
        Ok(())
    }

    pub fn new_frame(&mut self, module: u32, decl: u32) -> Frame {
        self.tally(1);
        let size = self.prog.decl(module, decl).frame_size as usize;
        match self.spares.frames.pop() {
            Some(mut frame) => {
                frame.reserve(size);
                frame
            }
            None => Vec::with_capacity(size),
        }
    }

    /// The room a value declaration referenced at `cx` evaluates in (see [`constants`]).
    fn room(&self, cx: Cx) -> Room {
        Room {
            nesting: self.nesting,
            depth: i64::from(self.limits.max_call_depth) - i64::from(cx.depth),
            range: self.limits.max_range_length,
            stack: self.stack_allowance.saturating_sub(stack_position().abs_diff(self.stack_base)),
            budgeted: self.budgeted,
        }
    }

    #[inline(never)]
    fn eval_reference(&mut self, cx: Cx, node: u32, target: &Target) -> IrResult<Value> {
        let (module, decl) = self.resolve(cx, node, target)?;
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        match &declaration.kind {
            CDeclKind::Function { .. } => Ok(Value::Function(FunctionRef { module, decl })),
            CDeclKind::Value { init, ty, slot } => {
                if let Some((value, operations)) = constants::lookup(prog.id, *slot, || self.room(cx)) {
                    if self.remaining - self.mark >= operations {
                        self.remaining -= operations;
                        return Ok(value);
                    }
                }
                let room = self.room(cx);
                let (before, names) = (self.remaining, self.extra_names.borrow().len());
                let vcx = Cx { module, decl, depth: cx.depth };
                let mut frame = Frame::new();
                let entered = if self.profiler.is_some() { Some(self.profile_enter(module, decl, false)) } else { None };
                let value = self.eval(vcx, &mut frame, *init)?;
                let value = match ty {
                    Some(ty) => {
                        self.normalize(vcx, *ty, value, &Path::Named("value '", &declaration.name, "'"))?
                    }
                    None => value,
                };
                if let Some(depth) = entered {
                    self.profile_leave(depth);
                }
                if self.extra_names.borrow().len() == names {
                    constants::keep(prog.id, prog.value_slots, *slot, &value, before - self.remaining, room);
                }
                Ok(value)
            }
            _ => self.fail(cx, node, codes::REFERENCE, format!("Declaration '{}' cannot be used as a value.", declaration.name)),
        }
    }

    // ---- operators --------------------------------------------------------------------------

    fn eval_binary(&mut self, cx: Cx, frame: &mut Frame, index: u32, op: BinOp, lhs: u32, rhs: u32) -> IrResult<Value> {
        match op {
            BinOp::And | BinOp::Or => {
                let name = if op == BinOp::And { "and" } else { "or" };
                let left = self.eval(cx, frame, lhs)?;
                let left = self.boolean(cx, index, &left, name)?;
                if (op == BinOp::And) != left {
                    return Ok(Value::bool(left));
                }
                let right = self.eval(cx, frame, rhs)?;
                Ok(Value::bool(self.boolean(cx, index, &right, name)?))
            }
            BinOp::Concat => self.eval_concat(cx, frame, index, lhs, rhs),
            _ => {
                if let Some(value) = self.leaf_binary(cx, frame, op, lhs, rhs) {
                    return Ok(value);
                }
                let left = self.eval(cx, frame, lhs)?;
                let right = self.eval(cx, frame, rhs)?;
                // Integer arithmetic and comparison without moving the operands (nothing to drop).
                if let (Value::Int(a), Value::Int(b)) = (&left, &right) {
                    let (a, b) = (*a, *b);
                    match op {
                        BinOp::Add => return Ok(Value::Int(a.wrapping_add(b))),
                        BinOp::Sub => return Ok(Value::Int(a.wrapping_sub(b))),
                        BinOp::Mul => return Ok(Value::Int(a.wrapping_mul(b))),
                        BinOp::Lt => return Ok(Value::bool(a < b)),
                        BinOp::Le => return Ok(Value::bool(a <= b)),
                        BinOp::Gt => return Ok(Value::bool(a > b)),
                        BinOp::Ge => return Ok(Value::bool(a >= b)),
                        _ => {}
                    }
                }
                self.binary(cx, index, op, left, right)
            }
        }
    }

    /// `concat`. A right operand that is an integer's text conversion (`"item " + i`) is
    /// written straight after the left text, in one allocation: the conversion node is charged
    /// and nested exactly as [`Machine::eval`] would, and any other operand takes the general path.
    fn eval_concat(&mut self, cx: Cx, frame: &mut Frame, index: u32, lhs: u32, rhs: u32) -> IrResult<Value> {
        let conversion = match self.node_at(cx, rhs) {
            Some(CNode::Text { operand, form: form @ (TextForm::Int | TextForm::Float64) }) => Some((*operand, *form)),
            _ => None,
        };
        // A text literal on the left is read in place (its charge as `eval` makes it), not
        // cloned: no count to raise and drop per item.
        if let Some((operand, form)) = conversion {
            if let Some(CNode::Str(literal)) = self.node_at(cx, lhs) {
                self.charge_node(cx, lhs)?;
                return self.concat_conversion(cx, frame, index, literal, literal.is_ascii(), rhs, operand, form);
            }
        }
        let left = self.eval(cx, frame, lhs)?;
        let Some((operand, form)) = conversion else {
            let right = self.eval(cx, frame, rhs)?;
            return self.binary(cx, index, BinOp::Concat, left, right);
        };
        if left.as_text().is_none() {
            let right = self.eval(cx, frame, rhs)?;
            return self.binary(cx, index, BinOp::Concat, left, right);
        }
        match &left {
            Value::Str(text) => self.concat_conversion(cx, frame, index, text, text.is_ascii(), rhs, operand, form),
            _ => {
                let case = left.as_text().unwrap_or("").to_string();
                self.concat_conversion(cx, frame, index, &case, case.is_ascii(), rhs, operand, form)
            }
        }
    }

    /// `left` (already evaluated; `left_ascii` when all its bytes are ASCII) concatenated with
    /// the text conversion node `rhs` of `operand`: the conversion charged and nested as
    /// `eval(rhs)` would, an integer's digits written on the stack and copied once into the
    /// result. An operand that is an integer leaf (a local slot holding one, a literal) is read
    /// in place, charged as `eval` charges it, without making a value of it.
    #[allow(clippy::too_many_arguments)]
    fn concat_conversion(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        left: &str,
        left_ascii: bool,
        rhs: u32,
        operand: u32,
        form: TextForm,
    ) -> IrResult<Value> {
        self.charge_node(cx, rhs)?;
        let mut digits = [0u8; 20];
        if let Some(i) = self.int_leaf(cx, frame, operand) {
            // `eval(operand)` of a leaf: its node charge one level down, nothing below it.
            self.nesting += 1;
            let charged = self.charge_node(cx, operand);
            self.nesting -= 1;
            charged?;
            return self.concat_texts(cx, index, left, int_digits(i, &mut digits), left_ascii);
        }
        self.nesting += 1;
        let value = self.eval(cx, frame, operand);
        self.nesting -= 1;
        let value = value?;
        let converted;
        let right: &str = match &value {
            Value::Int(i) => int_digits(*i, &mut digits),
            _ => {
                converted = self.text(cx, rhs, &value, form)?;
                converted.as_text().unwrap_or("")
            }
        };
        // Every text conversion's form is ASCII (digits, signs, a point, an exponent, words).
        self.concat_texts(cx, index, left, right, left_ascii)
    }

    /// The concat node `index` (its own charge made) of a text literal and an integer leaf's
    /// text conversion (`"item " + i`), computed here rather than through `eval_nested`, with
    /// the charges [`Machine::eval_concat`] makes, in its order and at its levels: inlined into
    /// a loop, such a body makes no nested call at all. `None`, with nothing charged, for any
    /// other operands.
    #[inline(always)]
    fn concat_literal_int(&mut self, cx: Cx, frame: &Frame, index: u32, lhs: u32, rhs: u32) -> Option<IrResult<Value>> {
        let (literal, operand) = self.literal_concat(cx, lhs, rhs)?;
        let value = self.int_leaf(cx, frame, operand)?;
        let mut digits = [0u8; 20];
        Some(self.literal_int_parts(cx, index, literal, lhs, rhs, operand, value, &mut digits).map(TextParts::into_value))
    }

    /// The operands of a concat of a text literal and a text conversion to int or float64 form:
    /// the literal and the conversion's operand (an integer leaf there makes
    /// [`Machine::literal_int_parts`]'s text).
    #[inline(always)]
    fn literal_concat(&self, cx: Cx, lhs: u32, rhs: u32) -> Option<(&'p Text, u32)> {
        let prog: &'p CompiledProgram = self.prog;
        let nodes = &prog.modules.get(cx.module as usize)?.nodes;
        let CNode::Str(literal) = nodes.get(lhs as usize)? else { return None };
        let CNode::Text { operand, form: TextForm::Int | TextForm::Float64 } = nodes.get(rhs as usize)? else {
            return None;
        };
        Some((literal, *operand))
    }

    /// The concat node `index` (its own charge made) of [`Machine::literal_concat`]'s operands,
    /// the conversion's operand an integer leaf holding `value`:
    /// the concat's operands charged one level down, the conversion's operand one further, and
    /// the joined text's charges; the text left in its parts.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn literal_int_parts<'t>(
        &mut self,
        cx: Cx,
        index: u32,
        literal: &'p Text,
        lhs: u32,
        rhs: u32,
        operand: u32,
        value: i64,
        digits: &'t mut [u8; 20],
    ) -> IrResult<TextParts<'t>>
    where
        'p: 't,
    {
        self.nesting += 1;
        let charged = self.literal_int_charged(cx, lhs, rhs, operand);
        self.nesting -= 1;
        charged?;
        let parts = TextParts { left: literal, left_ascii: literal.is_ascii(), right: int_digits(value, digits) };
        self.charge_concat(cx, index, parts.left, parts.right.len(), parts.left_ascii)?;
        Ok(parts)
    }

    #[inline(always)]
    fn literal_int_charged(&mut self, cx: Cx, lhs: u32, rhs: u32, operand: u32) -> IrResult<()> {
        self.charge_node(cx, lhs)?;
        self.charge_node(cx, rhs)?;
        self.nesting += 1;
        let charged = self.charge_node(cx, operand);
        self.nesting -= 1;
        charged
    }

    /// The integer a leaf node holds (a local slot holding one, or a literal), read without
    /// charging it.
    #[inline(always)]
    fn int_leaf(&self, cx: Cx, frame: &Frame, node: u32) -> Option<i64> {
        let prog: &'p CompiledProgram = self.prog;
        match Leaf::read(&prog.modules.get(cx.module as usize)?.nodes, frame, node)? {
            Leaf::Int(i) => Some(i),
            Leaf::Float(_) => None,
        }
    }

    /// `left` then the ASCII text `right`, as the concat node `index` charges and counts them.
    #[inline(always)]
    fn concat_texts(&mut self, cx: Cx, index: u32, left: &str, right: &str, left_ascii: bool) -> IrResult<Value> {
        debug_assert!(right.is_ascii());
        self.charge_concat(cx, index, left, right.len(), left_ascii)?;
        Ok(Value::Str(Text::concat(left, right, left_ascii)))
    }

    /// The charges, work and memory of the concat node `index` joining `left` to `right_len`
    /// bytes of ASCII.
    #[inline(always)]
    fn charge_concat(&mut self, cx: Cx, index: u32, left: &str, right_len: usize, left_ascii: bool) -> IrResult<()> {
        if self.budgeted {
            let left16 = if left_ascii { left.len() as u64 } else { len16(left) };
            let cost = (left16 + right_len as u64) / 64;
            self.charge(cx, Some(index), cost)?;
        }
        self.tally(1 + (left.len() + right_len) as u64 / 64);
        // As the general concat counts it against the memory ceiling.
        self.allocate(cx, Some(index), (left.len() + right_len) as u64)
    }

    fn binary(&mut self, cx: Cx, index: u32, op: BinOp, left: Value, right: Value) -> IrResult<Value> {
        use BinOp::*;
        match op {
            Eq | Ne => {
                let equal = self.equal(cx, Some(index), &left, &right)?;
                return Ok(Value::bool(equal == (op == Eq)));
            }
            Concat => {
                let (Some(l), Some(r)) = (left.as_text(), right.as_text()) else {
                    return self.fail(cx, index, codes::OPERATOR, "Operator 'concat' requires string operands.");
                };
                let (l_ascii, r_ascii) = (text_is_ascii(&left), text_is_ascii(&right));
                if self.budgeted {
                    let units = |text: &str, ascii: bool| if ascii { text.len() as u64 } else { len16(text) };
                    let cost = (units(l, l_ascii) + units(r, r_ascii)) / 64;
                    self.charge(cx, Some(index), cost)?;
                }
                self.tally(1 + (l.len() + r.len()) as u64 / 64);
                self.allocate(cx, Some(index), (l.len() + r.len()) as u64)?;
                return Ok(Value::Str(Text::concat(l, r, l_ascii && r_ascii)));
            }
            _ => {}
        }
        if let (Value::Int(a), Value::Int(b)) = (&left, &right) {
            let (a, b) = (*a, *b);
            return Ok(match op {
                Add => Value::Int(a.wrapping_add(b)),
                Sub => Value::Int(a.wrapping_sub(b)),
                Mul => Value::Int(a.wrapping_mul(b)),
                Div => {
                    if b == 0 {
                        return self.division_by_zero(cx, index);
                    }
                    Value::Float(a as f64 / b as f64)
                }
                IDiv => {
                    if b == 0 {
                        return self.division_by_zero(cx, index);
                    }
                    Value::Int(a.wrapping_div(b))
                }
                Mod | IMod => {
                    if b == 0 {
                        return self.division_by_zero(cx, index);
                    }
                    Value::Int(a.wrapping_rem(b))
                }
                Lt => Value::bool(a < b),
                Le => Value::bool(a <= b),
                Gt => Value::bool(a > b),
                Ge => Value::bool(a >= b),
                FAdd32 => Value::Float(f32_round(a as f64 + b as f64)),
                FSub32 => Value::Float(f32_round(a as f64 - b as f64)),
                FMul32 => Value::Float(f32_round(a as f64 * b as f64)),
                FDiv32 => {
                    if b == 0 {
                        return self.division_by_zero(cx, index);
                    }
                    Value::Float(f32_round(a as f64 / b as f64))
                }
                Eq | Ne | Concat | And | Or => unreachable_value(),
            });
        }
        let (Some(a), Some(b)) = (number(&left), number(&right)) else {
            return self.fail(cx, index, codes::NUMBER, format!("Operator '{}' requires numeric operands.", op.name()));
        };
        Ok(match op {
            Add => Value::Float(a + b),
            Sub => Value::Float(a - b),
            Mul => Value::Float(a * b),
            Div => {
                if b == 0.0 {
                    return self.division_by_zero(cx, index);
                }
                Value::Float(a / b)
            }
            IDiv | IMod => {
                let (Some(x), Some(y)) = (integral(a), integral(b)) else {
                    return self.fail(
                        cx,
                        index,
                        codes::NUMBER,
                        format!("Operator '{}' requires integer operands for integer results.", op.name()),
                    );
                };
                if y == 0 {
                    return self.division_by_zero(cx, index);
                }
                if op == IDiv {
                    Value::Int(x.wrapping_div(y))
                } else {
                    Value::Int(x.wrapping_rem(y))
                }
            }
            Mod => {
                if b == 0.0 {
                    return self.division_by_zero(cx, index);
                }
                let r = a % b;
                Value::Float(if r == 0.0 { 0.0 } else { r })
            }
            Lt => Value::bool(a < b),
            Le => Value::bool(a <= b),
            Gt => Value::bool(a > b),
            Ge => Value::bool(a >= b),
            FAdd32 => Value::Float(f32_round(a + b)),
            FSub32 => Value::Float(f32_round(a - b)),
            FMul32 => Value::Float(f32_round(a * b)),
            FDiv32 => {
                if b == 0.0 {
                    return self.division_by_zero(cx, index);
                }
                Value::Float(f32_round(a / b))
            }
            Eq | Ne | Concat | And | Or => unreachable_value(),
        })
    }

    fn division_by_zero<T>(&self, cx: Cx, index: u32) -> IrResult<T> {
        self.fail(cx, index, codes::DIVISION_BY_ZERO, "Division by zero.")
    }

    fn text(&self, cx: Cx, index: u32, value: &Value, form: TextForm) -> IrResult<Value> {
        let text = match (form, value) {
            (TextForm::Int | TextForm::Float64, Value::Int(i)) => return Ok(Value::Str(Text::int(*i))),
            // Float forms are laid out on the stack and copied once into the text.
            (TextForm::Int | TextForm::Float64, Value::Float(f)) => {
                let mut out = NumberText::new();
                write_float64(*f, &mut out);
                return Ok(Value::Str(Text::ascii(out.as_str())));
            }
            (TextForm::Float32, Value::Int(i)) => float32_text(*i as f64),
            (TextForm::Float32, Value::Float(f)) => float32_text(*f),
            (TextForm::Boolean, Value::Bool(b)) => (if *b { "true" } else { "false" }).to_string(),
            (form, other) => {
                let named = match form {
                    TextForm::Int => "int",
                    TextForm::Float64 => "float64",
                    TextForm::Float32 => "float32",
                    TextForm::Boolean => "boolean",
                };
                return self.fail(
                    cx,
                    index,
                    codes::OPERATOR,
                    format!("A text conversion from '{named}' cannot render {}.", other.describe()),
                );
            }
        };
        // Every form is ASCII (digits, signs, a point, an exponent, the boolean words).
        Ok(Value::Str(Text::ascii(&text)))
    }

    // ---- members ----------------------------------------------------------------------------

    fn member(&mut self, cx: Cx, index: u32, base: &Value, name: &Name) -> IrResult<Value> {
        let Value::Record(record) = base else {
            return Err(IrError::new(codes::BOUNDARY_TYPE, "Expected member access to be an object."));
        };
        self.tally(record.lookup_work());
        if let Some(value) = record.get_name(name) {
            return Ok(value.clone());
        }
        if let Some(type_name) = &record.type_name {
            let prog = self.prog;
            for shape in prog.shapes_of(type_name) {
                self.tally(1);
                if let Some((field, update)) = self.declared_field(*shape, name) {
                    if update || self.admits_empty(shape.module, field.ty) {
                        return Ok(Value::empty());
                    }
                }
            }
        }
        self.fail(cx, index, codes::MEMBER, format!("Object does not contain member '{name}'."))
    }

    /// The field `name` of a shape, and whether the shape is an update record: a record
    /// declaration's by a binary search of its fields in name order (tallied as its depth), a
    /// union case's by a scan.
    pub fn declared_field(&mut self, shape: Shape, name: &Name) -> Option<(&'p CField, bool)> {
        let (fields, update) = self.shape_fields(shape.module, shape.decl, shape.case);
        let order = &self.prog.decl(shape.module, shape.decl).output_order;
        let field = if shape.case.is_none() && order.len() == fields.len() {
            self.tally(u64::from(usize::BITS - order.len().leading_zeros()));
            first_in_order(fields, order, name).map(|at| &fields[at])
        } else {
            self.tally(fields.len() as u64);
            fields.iter().find(|field| Name::ptr_eq(&field.name, name) || *field.name == **name)
        };
        field.map(|field| (field, update))
    }

    /// The position of the field `name` in a record declaration's field order (by a binary
    /// search of its name order), `None` for a name it does not declare.
    pub fn declared_position(&mut self, shape: Shape, name: &str) -> Option<usize> {
        let (fields, _) = self.shape_fields(shape.module, shape.decl, shape.case);
        let order = &self.prog.decl(shape.module, shape.decl).output_order;
        if shape.case.is_none() && order.len() == fields.len() {
            self.tally(u64::from(usize::BITS - order.len().leading_zeros()));
            return first_in_order(fields, order, name);
        }
        self.tally(fields.len() as u64);
        fields.iter().position(|field| *field.name == *name)
    }

    /// The fields of a shape, and whether it is an update record.
    pub fn shape_fields(&self, module: u32, decl: u32, case: Option<u32>) -> (&'p [CField], bool) {
        let prog: &'p CompiledProgram = self.prog;
        match (&prog.decl(module, decl).kind, case) {
            (CDeclKind::Record { fields, update_target, .. }, None) => (fields, update_target.is_some()),
            (CDeclKind::Union { cases, .. }, Some(c)) => (cases.get(c as usize).map(|c| &*c.fields).unwrap_or(&[]), false),
            (CDeclKind::Component { props, .. }, _) => (props, false),
            _ => (&[], false),
        }
    }

    // ---- loops ------------------------------------------------------------------------------

    #[allow(clippy::too_many_arguments)]
    fn eval_for(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        item: u32,
        index_slot: Option<u32>,
        iterable: u32,
        body: u32,
    ) -> IrResult<Value> {
        let iterable = self.eval(cx, frame, iterable)?;
        let items = match iterable {
            Value::Seq(items) => items,
            single => {
                self.bind(cx, frame, item, single)?;
                if let Some(slot) = index_slot {
                    self.bind(cx, frame, slot, Value::Int(0))?;
                }
                return self.eval(cx, frame, body);
            }
        };
        let mut out = Vec::with_capacity(items.len());
        for (position, value) in items.each().enumerate() {
            self.bind(cx, frame, item, value)?;
            if let Some(slot) = index_slot {
                self.bind(cx, frame, slot, Value::Int(position as i64))?;
            }
            let value = self.eval(cx, frame, body)?;
            self.place(cx, index, &mut out, value)?;
        }
        Ok(Value::seq(out))
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_for_range(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        item: u32,
        index_slot: Option<u32>,
        iterable: u32,
        body: u32,
    ) -> IrResult<Value> {
        let iterable = self.eval(cx, frame, iterable)?;
        let bounds = match &iterable {
            Value::Record(record) if record.type_name() == Some("Range") => {
                match (record.get("start"), record.get("end"), record.get("endInclusive")) {
                    (Some(start), Some(end), Some(Value::Bool(inclusive))) => {
                        match (range_int(start), range_int(end)) {
                            (Some(start), Some(end)) => Some((start, end, *inclusive)),
                            _ => None,
                        }
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((start, end, inclusive)) = bounds else {
            return self.fail(cx, index, codes::FOR, "For expression iterable must evaluate to a Range record with integer bounds.");
        };
        let span = end as i128 - start as i128;
        let count: i128 = if span > 0 {
            span + inclusive as i128
        } else if span == 0 && inclusive {
            1
        } else {
            0
        };
        if count > self.limits.max_range_length as i128 {
            let limit = self.limits.max_range_length;
            return Err(self.limit_fail(
                cx,
                Some(index),
                "maxRangeLength",
                limit,
                format!("A range of {count} integers is longer than the limit of {limit}."),
            ));
        }
        let count = count as u64;
        // Reserve no more than the budget can pay for.
        // (every placed item costs at least 1; untouched capacity costs no memory).
        let reserve = count.min(self.remaining).min(1 << 22) as usize;
        let leaf_body = self.binary_node(cx, body);
        let fused = match (leaf_body, index_slot) {
            (Some((BinOp::Concat, lhs, rhs)), None) => self.fused_text(cx, item, lhs, rhs).map(Fused::Text),
            (Some((op, lhs, rhs)), None) => self.fused_body(cx, frame, item, op, lhs, rhs).map(Fused::Int),
            _ => None,
        };
        // Integers go straight into values; anything else may be texts, packed while it is
        // (a fused text loop's surely are).
        let mut out = match fused {
            Some(Fused::Int(_)) => Placed::values(reserve),
            Some(Fused::Text(_)) => Placed::texts(reserve, true),
            None => Placed::texts(reserve, false),
        };
        // A body that is a number's text conversion leaves its text in parts, as does a text
        // literal joined to an integer leaf's text (the leaf read per item).
        let text_body = match leaf_body {
            Some((BinOp::Concat, lhs, rhs)) => {
                self.literal_concat(cx, lhs, rhs).map(|(literal, operand)| TextBody::Literal { literal, lhs, rhs, operand })
            }
            Some(_) => None,
            None => match self.node(cx, body) {
                Ok(CNode::Text { operand, form: form @ (TextForm::Int | TextForm::Float64) }) => {
                    Some(TextBody::Conversion(Conversion { operand: *operand, form: *form, binary: self.binary_node(cx, *operand) }))
                }
                _ => None,
            },
        };
        let mut scratch = Scratch::new();
        let mut position = 0;
        while position < count {
            if let Some(fused) = fused {
                // The run's first item is bound before any item is charged, as the general loop
                // binds each one before its body: an item slot that cannot be bound fails here.
                self.bind(cx, frame, item, Value::Int((start as i128 + position as i128) as i64))?;
                let done = match fused {
                    Fused::Int(body) => {
                        let done = self.run_fused(body, start, position, count, &mut out.values);
                        // The fused items against the memory ceiling (each was paid 4 operations).
                        self.allocate(cx, Some(index), ITEM_BYTES * done)?;
                        done
                    }
                    // Each text and its place counted against the ceiling as it is made.
                    Fused::Text(literal) => match out.texts.as_mut() {
                        Some(texts) => self.run_fused_text(literal, start, position, count, texts),
                        None => 0,
                    },
                };
                if done > 0 {
                    position += done;
                    let last = (start as i128 + position as i128 - 1) as i64;
                    self.bind(cx, frame, item, Value::Int(last))?;
                    if position == count {
                        break;
                    }
                }
            }
            let value = (start as i128 + position as i128) as i64;
            self.bind(cx, frame, item, Value::Int(value))?;
            if let Some(slot) = index_slot {
                self.bind(cx, frame, slot, Value::Int(position as i64))?;
            }
            match (text_body, leaf_body) {
                (Some(TextBody::Literal { literal, lhs, rhs, operand }), _) => match self.int_leaf(cx, frame, operand) {
                    Some(value) => {
                        // As `eval_binary_body` charges it, the text not yet made.
                        self.charge_node(cx, body)?;
                        let parts = self.literal_int_parts(cx, body, literal, lhs, rhs, operand, value, &mut scratch.digits)?;
                        self.place_parts(cx, index, &mut out, parts)?;
                    }
                    None => {
                        let value = self.eval_binary_body(cx, frame, body, BinOp::Concat, lhs, rhs)?;
                        self.place_item(cx, index, &mut out, value)?;
                    }
                },
                (Some(TextBody::Conversion(conversion)), _) => {
                    self.place_conversion(cx, frame, index, body, conversion, &mut out, &mut scratch)?
                }
                (None, Some((op, lhs, rhs))) => {
                    let value = self.eval_binary_body(cx, frame, body, op, lhs, rhs)?;
                    self.place_item(cx, index, &mut out, value)?;
                }
                (None, None) => {
                    let value = self.eval(cx, frame, body)?;
                    self.place_item(cx, index, &mut out, value)?;
                }
            }
            position += 1;
        }
        Ok(out.into_value())
    }

    /// [`Machine::place`] into a range loop's items: a text into packed texts while they are
    /// packed (the same charges), anything else after they are turned into values.
    fn place_item(&mut self, cx: Cx, node: u32, out: &mut Placed, value: Value) -> IrResult<()> {
        if let Value::Str(text) = &value {
            if self.pack(cx, node, out, text, "", text.is_ascii())? {
                return Ok(());
            }
        }
        out.unpack();
        self.place(cx, node, &mut out.values, value)
    }

    /// [`Machine::place_item`] of a text in parts: appended to packed texts as it is, made a
    /// text only where the items are values.
    fn place_parts(&mut self, cx: Cx, node: u32, out: &mut Placed, parts: TextParts<'_>) -> IrResult<()> {
        if self.pack(cx, node, out, parts.left, parts.right, parts.left_ascii)? {
            return Ok(());
        }
        self.place_item(cx, node, out, parts.into_value())
    }

    /// Places the text `left` then `right` (`ascii` when both are) into packed texts with the
    /// charges of placing an item; `false`, with nothing charged, where the items are values or
    /// the buffer has no room for it.
    #[inline(always)]
    fn pack(&mut self, cx: Cx, node: u32, out: &mut Placed, left: &str, right: &str, ascii: bool) -> IrResult<bool> {
        let Some(texts) = out.texts.as_mut() else { return Ok(false) };
        if !texts.has_room(left.len() + right.len()) {
            return Ok(false);
        }
        self.charge_item(cx, node)?;
        if texts.len() == 0 {
            texts.reserve(out.reserve, 0);
        }
        texts.push_parts(left, right, ascii);
        Ok(true)
    }

    /// The range loop body `body`, a text conversion, evaluated as [`Machine::eval`] evaluates
    /// it and placed as the loop `index`'s item: a number's text from the scratch, any other
    /// conversion's value made.
    #[allow(clippy::too_many_arguments)]
    fn place_conversion(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        body: u32,
        Conversion { operand, form, binary }: Conversion,
        out: &mut Placed,
        scratch: &mut Scratch,
    ) -> IrResult<()> {
        self.charge_node(cx, body)?;
        self.nesting += 1;
        let value = match binary {
            Some((op, lhs, rhs)) => self.eval_binary_body(cx, frame, operand, op, lhs, rhs),
            None => self.eval(cx, frame, operand),
        };
        self.nesting -= 1;
        let right = match value? {
            Value::Int(i) => scratch.int(i),
            Value::Float(f) => scratch.float64(f),
            other => {
                let value = self.text(cx, body, &other, form)?;
                return self.place_item(cx, index, out, value);
            }
        };
        self.place_parts(cx, index, out, TextParts { left: "", left_ascii: true, right })
    }

    /// A loop body that is one integer operator over the loop variable and integer constants
    /// (literals, or locals the body cannot rebind), with every per-iteration check passing at
    /// this nesting level and stack position: it is run by [`Machine::run_fused`].
    fn fused_body(&self, cx: Cx, frame: &Frame, item: u32, op: BinOp, lhs: u32, rhs: u32) -> Option<FusedBody> {
        if !matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
            return None;
        }
        // The operator's node is charged at this level and its operands one deeper: both
        // within the nesting limit and the stack, which no iteration changes.
        if self.nesting + 1 >= MAX_EXPRESSION_NESTING || !self.stack_ok() {
            return None;
        }
        let nodes = &self.prog.modules.get(cx.module as usize)?.nodes;
        let operand = |node: u32| match nodes.get(node as usize)? {
            CNode::Slot { slot, .. } if *slot == item => Some(Operand::Item),
            CNode::Slot { slot, .. } => match frame.get(*slot as usize) {
                Some(Some(Value::Int(i))) => Some(Operand::Const(*i)),
                _ => None,
            },
            CNode::Int(i) => Some(Operand::Const(*i)),
            _ => None,
        };
        Some(FusedBody { op, lhs: operand(lhs)?, rhs: operand(rhs)? })
    }

    /// Runs iterations `position..count` of a fused loop body for as long as each of them would
    /// take only fast paths in the general loop (the operator's node, its two operands and the
    /// placed item, 4 operations, all charged while the budget is above the long-run mark) and
    /// returns how many ran: the same items, charges and work as the general loop, which takes
    /// the iteration where a charge could fail or a long-run hook is due.
    fn run_fused(&mut self, body: FusedBody, start: i64, position: u64, count: u64, out: &mut Vec<Value>) -> u64 {
        const CHARGES: u64 = 4;
        let runs = (count - position).min(self.remaining.saturating_sub(self.mark) / CHARGES);
        if runs == 0 {
            return 0;
        }
        let first = (start as i128 + position as i128) as i64;
        let FusedBody { op, lhs, rhs } = body;
        out.reserve(runs as usize);
        // One loop per operator and operand pattern, so the loop body has no branch.
        macro_rules! fill {
            ($make:expr) => {{
                let make = $make;
                let item = |k: u64| first.wrapping_add(k as i64);
                match (lhs, rhs) {
                    (Operand::Item, Operand::Item) => out.extend((0..runs).map(|k| make(item(k), item(k)))),
                    (Operand::Item, Operand::Const(b)) => out.extend((0..runs).map(|k| make(item(k), b))),
                    (Operand::Const(a), Operand::Item) => out.extend((0..runs).map(|k| make(a, item(k)))),
                    (Operand::Const(a), Operand::Const(b)) => out.extend((0..runs).map(|_| make(a, b))),
                }
            }};
        }
        match op {
            BinOp::Add => fill!(|a: i64, b: i64| Value::Int(a.wrapping_add(b))),
            BinOp::Sub => fill!(|a: i64, b: i64| Value::Int(a.wrapping_sub(b))),
            BinOp::Mul => fill!(|a: i64, b: i64| Value::Int(a.wrapping_mul(b))),
            BinOp::Lt => fill!(|a: i64, b: i64| Value::bool(a < b)),
            BinOp::Le => fill!(|a: i64, b: i64| Value::bool(a <= b)),
            BinOp::Gt => fill!(|a: i64, b: i64| Value::bool(a > b)),
            BinOp::Ge => fill!(|a: i64, b: i64| Value::bool(a >= b)),
            _ => return 0,
        }
        self.remaining -= runs * CHARGES;
        self.tally(runs);
        runs
    }

    /// A loop body that joins a text literal and the loop variable's decimal text (`"item " +
    /// i`, the literal first, a text conversion of form `int` or `float64`), short enough that
    /// the join has no length cost (ir-format §6.1: a concat costs its UTF-16 length over 64),
    /// with every per-iteration check passing at this nesting level and stack position: it is
    /// run by [`Machine::run_fused_text`]. The general loop computes such a body through
    /// [`Machine::concat_literal_int`]; this makes the same texts and charges without it.
    fn fused_text(&self, cx: Cx, item: u32, lhs: u32, rhs: u32) -> Option<&'p Text> {
        // The concat node at this level, its operands one deeper, the conversion's operand one
        // further: all within the nesting limit and the stack, which no iteration changes.
        if self.nesting + 2 >= MAX_EXPRESSION_NESTING || !self.stack_ok() {
            return None;
        }
        let prog: &'p CompiledProgram = self.prog;
        let nodes = &prog.modules.get(cx.module as usize)?.nodes;
        let CNode::Str(literal) = nodes.get(lhs as usize)? else { return None };
        let CNode::Text { operand, form: TextForm::Int | TextForm::Float64 } = nodes.get(rhs as usize)? else {
            return None;
        };
        if !matches!(nodes.get(*operand as usize)?, CNode::Slot { slot, .. } if *slot == item) {
            return None;
        }
        // With the literal's bytes (at least its UTF-16 units) and 20 bytes of digits and sign
        // under 64, the join costs nothing past its node and counts one unit of work.
        if literal.len() + 20 >= 64 {
            return None;
        }
        Some(literal)
    }

    /// Runs iterations `position..count` of a fused text body for as long as each takes only
    /// fast paths in the general loop (the concat node, its two operands, the conversion's
    /// operand and the placed item, 5 operations charged while the budget is above the
    /// long-run mark; the text and the item within the memory ceiling) and returns how many
    /// ran: the same texts, charges, work and memory as the general loop, which takes the
    /// iteration where a charge or the ceiling could fail or a long-run hook is due.
    fn run_fused_text(&mut self, literal: &Text, start: i64, position: u64, count: u64, out: &mut Texts) -> u64 {
        const CHARGES: u64 = 5;
        let runs = (count - position).min(self.remaining.saturating_sub(self.mark) / CHARGES);
        let first = (start as i128 + position as i128) as i64;
        let ascii = literal.is_ascii();
        let mut digits = DecimalCounter::new(first);
        // Room for every item this run may make (the literal and the widest number's digits),
        // no more than the memory ceiling leaves.
        let last = (first as i128 + runs as i128 - 1).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        let widest = decimal_width(first).max(decimal_width(last));
        let room = self.limits.max_memory.saturating_sub(self.allocated).min(1 << 26) as usize;
        out.reserve(runs as usize, (runs as usize).saturating_mul(literal.len() + widest).min(room));
        let mut done = 0;
        while done < runs {
            if done > 0 {
                digits.step();
            }
            let text = digits.text();
            let bytes = (literal.len() + text.len()) as u64;
            // The text and then its place in the list, as the general loop counts them.
            let allocated = self.allocated.saturating_add(bytes).saturating_add(ITEM_BYTES);
            if allocated > self.limits.max_memory || !out.has_room(bytes as usize) {
                break;
            }
            self.allocated = allocated;
            out.push_fresh(literal, text, ascii);
            done += 1;
        }
        self.remaining -= done * CHARGES;
        // Each join one unit of work, each placed item one.
        self.tally(2 * done);
        done
    }

    // ---- patterns ---------------------------------------------------------------------------

    /// A pattern's value (`pattern` is node `node`).
    fn pattern(&mut self, cx: Cx, frame: &mut Frame, node: u32, pattern: &CNode) -> IrResult<Value> {
        // A pattern's node is read before it is charged.
        if let CNode::BadLiteral(message) = pattern {
            return self.bad_literal(cx, message);
        }
        if let CNode::UnionCase { target: Target::Decl { module, decl }, case, found, .. } = pattern {
            let prog = self.prog;
            if let CDeclKind::Union { cases, index, .. } = &prog.decl(*module, *decl).kind {
                // Any non-constant case of the name (an image could declare the name twice).
                let named = self.case_named(index, cases, case, *found);
                if let Some(found) = named.and_then(|named| cases.get(named.with_fields as usize)) {
                    self.charge_in_place(cx, node)?;
                    return Ok(Value::Record(Record::new_rc(Some(Name::clone(&found.type_name)), Vec::new())));
                }
            }
        }
        self.eval(cx, frame, node)
    }

    fn pattern_matches(&mut self, cx: Cx, node: u32, scrutinee: &Value, pattern: &Value) -> IrResult<bool> {
        if pattern.is_empty() || scrutinee.is_empty() {
            return Ok(pattern.is_empty() && scrutinee.is_empty());
        }
        if let (Value::Record(s), Value::Record(p)) = (scrutinee, pattern) {
            if let Some(name) = &p.type_name {
                return Ok(s.type_name.as_deref() == Some(&**name));
            }
        }
        self.equal(cx, Some(node), scrutinee, pattern)
    }

    // ---- calls ------------------------------------------------------------------------------

    /// The function a call's callee node names or evaluates to; a callee that is no function
    /// fails at the call node (`call`), named `what` (`call` or `named call`) as the reference
    /// runtimes name it.
    fn callee(&mut self, cx: Cx, frame: &mut Frame, callee: u32, call: u32, what: &str) -> IrResult<FunctionRef> {
        match self.node(cx, callee)? {
            CNode::Reference(Target::Decl { module, decl }) => {
                if matches!(self.prog.decl(*module, *decl).kind, CDeclKind::Function { .. }) {
                    self.charge_in_place(cx, callee)?;
                    return Ok(FunctionRef { module: *module, decl: *decl });
                }
            }
            // The callee's node is read before it is charged.
            CNode::BadLiteral(message) => return self.bad_literal(cx, message),
            _ => {}
        }
        match self.eval(cx, frame, callee)? {
            Value::Function(function) => Ok(function),
            _ => self.fail(cx, call, codes::CALL, format!("NX IR {what} callee did not evaluate to a function value.")),
        }
    }

    /// The parameters `function` declares (none when it is not a function).
    pub fn params(&self, function: FunctionRef) -> &'p [CField] {
        let prog: &'p CompiledProgram = self.prog;
        match &prog.decl(function.module, function.decl).kind {
            CDeclKind::Function { params, .. } => params,
            _ => &[],
        }
    }

    /// Maps named arguments onto the callee's declared parameters, one place each in `places`
    /// (as many as [`Machine::params`]); extra names are dropped.
    pub fn by_name(&mut self, function: FunctionRef, fields: &[(Name, Value)], places: &mut [Option<Value>]) {
        let params = self.params(function);
        self.tally(params.len() as u64 * (fields.len() as u64 + 1));
        for (place, param) in places.iter_mut().zip(params) {
            *place = fields.iter().find(|(k, _)| Name::ptr_eq(k, &param.name)).map(|(_, v)| v.clone());
        }
    }

    /// A call by position: its arguments evaluated in order, then the callee invoked.
    #[inline(never)]
    fn call(&mut self, cx: Cx, frame: &mut Frame, index: u32, callee: u32, args: &[Option<u32>]) -> IrResult<Value> {
        let function = self.callee(cx, frame, callee, index, "call")?;
        with_places(args.len(), |values| {
            for (place, arg) in values.iter_mut().zip(args) {
                if let Some(node) = arg {
                    *place = Some(self.eval(cx, frame, *node)?);
                }
            }
            self.invoke(function, values, cx.depth + 1, false).map_err(|error| self.math_call_origin(cx, index, error))
        })
    }

    /// Invokes a function at `depth` with positional arguments (`None` = left out).
    pub fn invoke(&mut self, function: FunctionRef, args: &mut [Option<Value>], depth: u32, host: bool) -> IrResult<Value> {
        let (value, result) = self.invoke_unchecked(function, args, depth, host)?;
        match result {
            Some(ty) => {
                let cx = Cx { module: function.module, decl: function.decl, depth };
                let name = &self.prog.decl(function.module, function.decl).name;
                self.normalize(cx, ty, value, &Path::result(name))
            }
            None => Ok(value),
        }
    }

    /// [`Machine::invoke`] up to its result's check: the body's value, and the declared result
    /// type it is to be checked against.
    pub fn invoke_unchecked(
        &mut self,
        function: FunctionRef,
        args: &mut [Option<Value>],
        depth: u32,
        host: bool,
    ) -> IrResult<(Value, Option<u32>)> {
        if self.profiler.is_some() {
            return self.invoke_profiled(function, args, depth, host);
        }
        self.invoke_body(function, args, depth, host)
    }

    /// [`Machine::invoke_unchecked`] on its own call path of the profile.
    #[cold]
    #[inline(never)]
    fn invoke_profiled(
        &mut self,
        function: FunctionRef,
        args: &mut [Option<Value>],
        depth: u32,
        host: bool,
    ) -> IrResult<(Value, Option<u32>)> {
        let entered = self.profile_enter(function.module, function.decl, true);
        let result = self.invoke_body(function, args, depth, host);
        self.profile_leave(entered);
        result
    }

    fn invoke_body(
        &mut self,
        function: FunctionRef,
        args: &mut [Option<Value>],
        depth: u32,
        host: bool,
    ) -> IrResult<(Value, Option<u32>)> {
        let prog = self.prog;
        let fcx = Cx { module: function.module, decl: function.decl, depth };
        if depth > self.limits.max_call_depth {
            let limit = self.limits.max_call_depth;
            return Err(limit_error(
                "maxCallDepth",
                limit as u64,
                format!("Function calls nest deeper than the call depth {limit}."),
            ));
        }
        let declaration = prog.decl(function.module, function.decl);
        let CDeclKind::Function { params, body, result, .. } = &declaration.kind else {
            return Err(IrError::new(codes::CALL, format!("'{}' is not a function.", declaration.name)));
        };
        if args.len() > params.len() {
            return Err(IrError::new(
                codes::ARGUMENTS,
                format!("Function '{}' expected at most {} arguments, got {}.", declaration.name, params.len(), args.len()),
            ));
        }
        let mut frame = self.new_frame(function.module, function.decl);
        for (slot, param) in params.iter().enumerate() {
            let arg = args.get_mut(slot).and_then(Option::take);
            let outcome = self.bind_param(fcx, &mut frame, slot as u32, param, arg, &declaration.name);
            if let Err(mut error) = outcome {
                if host && !self.default_failed {
                    for diagnostic in error.diagnostics.iter_mut() {
                        let code = diagnostic.code;
                        if code == codes::ARGUMENTS || code == codes::FUNCTION_VALUE || code.starts_with("nx-ir-boundary-") {
                            diagnostic.argument = Some(param.name.to_string());
                        }
                    }
                }
                return Err(error);
            }
        }
        let value = self.eval(fcx, &mut frame, *body)?;
        self.recycle_frame(frame);
        Ok((value, *result))
    }

    fn bind_param(
        &mut self,
        fcx: Cx,
        frame: &mut Frame,
        slot: u32,
        param: &CField,
        arg: Option<Value>,
        function: &str,
    ) -> IrResult<()> {
        let value = match arg {
            Some(value) => {
                let value = match value {
                    Value::Seq(items) if param.content => {
                        self.tally(items.len() as u64);
                        let mut out = Vec::with_capacity(items.len());
                        for item in items.iter() {
                            match item {
                                Value::Seq(inner) => {
                                    self.charge(fcx, None, (inner.len() as u64).max(1))?;
                                    self.tally(inner.len() as u64);
                                    out.extend(inner.iter().cloned());
                                }
                                other => {
                                    self.charge(fcx, None, 1)?;
                                    out.push(other.clone());
                                }
                            }
                        }
                        Value::seq(out)
                    }
                    other => other,
                };
                self.normalize(fcx, param.ty, value, &Path::Root(&param.name))?
            }
            None => match param.default {
                Some(default) => {
                    let result = self
                        .eval(fcx, frame, default)
                        .and_then(|value| self.normalize(fcx, param.ty, value, &Path::Root(&param.name)));
                    match result {
                        Ok(value) => value,
                        Err(error) => {
                            self.default_failed = true;
                            return Err(error);
                        }
                    }
                }
                None if param.optional => self.normalize(fcx, param.ty, Value::empty(), &Path::Root(&param.name))?,
                None => {
                    return Err(IrError::new(
                        codes::ARGUMENTS,
                        format!("Function '{function}' requires argument '{}'.", param.name),
                    ))
                }
            },
        };
        self.bind(fcx, frame, slot, value)
    }

    // ---- constructions ----------------------------------------------------------------------

    /// Binds content items to a declaration's content field (ir-format §4.8).
    pub fn bind_content(
        &self,
        decl_module: u32,
        fields: &[CField],
        props: &mut Vec<(Name, Value)>,
        items: Vec<Value>,
        what: &str,
    ) -> IrResult<()> {
        let Some(field) = fields.iter().find(|f| f.content) else {
            return Err(IrError::new(codes::BOUNDARY_FIELD, format!("{what} does not accept content.")));
        };
        if props.iter().any(|(k, _)| **k == *field.name) {
            return Err(IrError::new(
                codes::BOUNDARY_FIELD,
                format!("{what} field '{}' was supplied both as a property and as content.", field.name),
            ));
        }
        let value = if self.admits_many(decl_module, field.ty) || items.len() != 1 {
            Value::seq(items)
        } else {
            items.into_iter().next().unwrap_or_else(Value::empty)
        };
        props.push((Name::clone(&field.name), value));
        Ok(())
    }

    /// The properties of a record or union-case construction, then its content bound to the
    /// declaration's content field, in evaluation order.
    #[allow(clippy::too_many_arguments)]
    fn construction_input(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        module: u32,
        fields: &[CField],
        (props, spread): Props<'_>,
        content: &[u32],
        what: &str,
    ) -> IrResult<Vec<(Name, Value)>> {
        let mut input = self.properties(cx, frame, props, spread)?;
        if !content.is_empty() {
            let items = self.items(cx, frame, index, content)?;
            self.bind_content(module, fields, &mut input, items, what)?;
        }
        Ok(input)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn eval_record(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        target: &Target,
        name: &Name,
        props: Props<'_>,
        content: &[u32],
    ) -> IrResult<Value> {
        let (module, decl) = self.resolve(cx, index, target)?;
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        let CDeclKind::Record { fields, update_target, .. } = &declaration.kind else {
            return Err(self.not_a_record(cx, index, name));
        };
        if update_target.is_none() && content.is_empty() && prog.shortcuts {
            // A spread is no field, so a list holding one is never every field written.
            // Filled in place (not returned): an array written byte by byte and then copied
            // whole stalls on the copy.
            let mut places = [0u8; WHOLE_FIELDS];
            if every_field_written(props.0, fields, &mut places) {
                let record = (module, decl, &declaration.name);
                return self.construct_whole(cx, frame, record, fields, props.0, &places, name);
            }
        }
        let mut input = self.construction_input(cx, frame, index, module, fields, props, content, name)?;
        let rcx = Cx { module, decl, depth: cx.depth };
        if update_target.is_some() {
            return self.update_record(rcx, fields, input, name, &declaration.name);
        }
        let mut frame = Frame::new();
        let fields_out = self.normalize_owned_fields(rcx, fields, &mut input, &mut frame, &Path::Root(name), false);
        self.recycle_fields(input);
        Ok(Value::Record(Record::normalized_rc(Name::clone(&declaration.name), fields_out?, module, decl, false)))
    }

    #[cold]
    #[inline(never)]
    fn not_a_record(&self, cx: Cx, index: u32, name: &Name) -> IrError {
        self.error(cx, Some(index), codes::RECORD, format!("'{name}' is not a record."))
    }

    /// An update record's construction: only the fields written, checked.
    #[inline(never)]
    fn update_record(&mut self, rcx: Cx, fields: &[CField], input: Vec<(Name, Value)>, name: &Name, type_name: &Name) -> IrResult<Value> {
        let fields_out = self.normalize_patch_fields(rcx, fields, &input, &Path::Root(name));
        self.recycle_fields(input);
        Ok(Value::Record(Record::new_rc(Some(Name::clone(type_name)), fields_out?)))
    }

    /// A construction that writes every field of its record (`record`: module, declaration and
    /// name) once, none of which has a default (`places`: each property's field): the general
    /// path's charges and checks, in its order (each property evaluated as written, then each
    /// field checked in declaration order), with each value put in its field's place as it is
    /// evaluated.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn construct_whole(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        (module, decl, type_name): (u32, u32, &Name),
        fields: &[CField],
        props: &[(Name, u32)],
        places: &[u8; WHOLE_FIELDS],
        name: &Name,
    ) -> IrResult<Value> {
        let count = props.len() as u64;
        self.tally(count * (count + 1));
        let mut out: Vec<(Name, Value)> = fields.iter().map(|f| (Name::clone(&f.name), Value::Bool(false))).collect();
        for ((_, node), &place) in props.iter().zip(places) {
            let value = self.eval(cx, frame, *node)?;
            // Stored before the placeholder is dropped, so the value is not spilled across the
            // drop call and read back whole.
            drop(Value::swap_in(&mut out[place as usize].1, value));
        }
        self.tally((count + 1) * (count + 1));
        let rcx = Cx { module, decl, depth: cx.depth };
        let root = Path::Root(name);
        let mut emptied = false;
        for ((_, slot), field) in out.iter_mut().zip(fields) {
            let value = Value::swap_in(slot, Value::Bool(false));
            let value = self.normalize(rcx, field.ty, value, &Path::Field(&root, &field.name))?;
            emptied |= !self.stored(module, field.ty, &value);
            // The slot holds the placeholder put there above: a boolean, nothing to drop.
            std::mem::forget(Value::swap_in(slot, value));
        }
        if emptied {
            let mut at = 0;
            out.retain(|(_, value)| {
                let kept = self.stored(module, fields[at].ty, value);
                at += 1;
                kept
            });
        }
        Ok(Value::Record(Record::normalized_rc(Name::clone(type_name), out, module, decl, false)))
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn eval_union_case(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        target: &Target,
        (name, case, found): (&Name, &Name, u32),
        props: Props<'_>,
        content: &[u32],
    ) -> IrResult<Value> {
        let (module, decl) = self.resolve(cx, index, target)?;
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        let CDeclKind::Union { cases, index: by_name, .. } = &declaration.kind else {
            return Err(self.no_such_case(cx, index, name, None));
        };
        let named = self.case_named(by_name, cases, case, found);
        let Some(found) = named.and_then(|named| cases.get(named.first as usize)) else {
            return Err(self.no_such_case(cx, index, name, Some(case)));
        };
        if found.is_constant {
            return Ok(Value::Case(Rc::new(CaseValue { case: Name::clone(&found.name) })));
        }
        let mut input =
            self.construction_input(cx, frame, index, module, &found.fields, props, content, &found.type_name)?;
        let ucx = Cx { module, decl, depth: cx.depth };
        let mut frame = Frame::new();
        let fields =
            self.normalize_owned_fields(ucx, &found.fields, &mut input, &mut frame, &Path::Root(&found.type_name), false);
        self.recycle_fields(input);
        let fields = fields?;
        Ok(Value::Record(Record::normalized_rc(Name::clone(&found.type_name), fields, module, decl, false)))
    }

    /// The cases of a union case node's name: those found when the program was compiled (the
    /// node's `found`), or else searched for in the union's `index` (tallied).
    #[inline(always)]
    fn case_named(&mut self, index: &CaseIndex, cases: &[CCase], case: &str, found: u32) -> Option<CaseEntry> {
        if found != NO_CASE {
            self.tally(1);
            return index.entry(found);
        }
        let (named, work) = index.find(cases, case);
        self.tally(work);
        named
    }

    /// The props of a construction of component `(module, decl)` (whose props are `fields`),
    /// then its content bound to its content prop, in evaluation order: its plain props, and
    /// its handler props apart.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn component_input(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        (module, decl, fields): (u32, u32, &[CField]),
        (props, spread): Props<'_>,
        content: &[u32],
        name: &Name,
    ) -> IrResult<SplitProps> {
        let input = self.properties(cx, frame, props, spread)?;
        let items = if content.is_empty() { None } else { Some(self.items(cx, frame, index, content)?) };
        let (mut plain, handlers) = self.split_handler_props(module, decl, input, &Path::Named("", name, " props"))?;
        if let Some(items) = items {
            self.bind_content(module, fields, &mut plain, items, name)?;
        }
        Ok((plain, handlers))
    }

    #[cold]
    #[inline(never)]
    fn not_a_component(&self, cx: Cx, index: u32, name: &Name) -> IrError {
        self.error(cx, Some(index), codes::COMPONENT, format!("'{name}' is not a component."))
    }

    /// `name` is not a union (`case` none), or has no case `case`.
    #[cold]
    #[inline(never)]
    fn no_such_case(&self, cx: Cx, index: u32, name: &Name, case: Option<&Name>) -> IrError {
        let message = match case {
            None => format!("'{name}' is not a union."),
            Some(case) => format!("'{name}' has no case '{case}'."),
        };
        self.error(cx, Some(index), codes::UNION, message)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn eval_component(
        &mut self,
        cx: Cx,
        frame: &mut Frame,
        index: u32,
        target: &Target,
        name: &Name,
        (props, spread): Props<'_>,
        content: &[u32],
    ) -> IrResult<Value> {
        let (module, decl) = self.resolve(cx, index, target)?;
        let prog = self.prog;
        let declaration = prog.decl(module, decl);
        let CDeclKind::Component { props: fields, .. } = &declaration.kind else {
            return Err(self.not_a_component(cx, index, name));
        };
        let (plain, handlers) = self.component_input(cx, frame, index, (module, decl, fields), (props, spread), content, name)?;
        let ccx = Cx { module, decl, depth: cx.depth };
        let mut frame = Frame::new();
        let mut out = self.normalize_fields(ccx, fields, &plain, &mut frame, &Path::Named("", name, " props"), false)?;
        for (prop, handler) in handlers {
            set_field(&mut out, prop, handler);
        }
        Ok(Value::Record(Record::new_rc(Some(Name::clone(&declaration.name)), out)))
    }
}

/// A numeric operand read in place by [`Machine::leaf_binary`] and [`Machine::int_leaf`].
#[derive(Clone, Copy)]
enum Leaf {
    Int(i64),
    Float(f64),
}

impl Leaf {
    /// The number leaf node `node` holds: a local slot holding a number, or a number literal.
    #[inline(always)]
    fn read(nodes: &[CNode], frame: &Frame, node: u32) -> Option<Leaf> {
        match nodes.get(node as usize)? {
            CNode::Slot { slot, .. } => match frame.get(*slot as usize) {
                Some(Some(Value::Int(i))) => Some(Leaf::Int(*i)),
                Some(Some(Value::Float(f))) => Some(Leaf::Float(*f)),
                _ => None,
            },
            CNode::Int(i) => Some(Leaf::Int(*i)),
            CNode::Float(f) => Some(Leaf::Float(*f)),
            _ => None,
        }
    }

    /// As [`number`] takes it.
    #[inline(always)]
    fn float(self) -> f64 {
        match self {
            Leaf::Int(i) => i as f64,
            Leaf::Float(f) => f,
        }
    }
}

#[inline]
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// An integral float as the integer it is, within ±(2^53−1).
pub(crate) fn integral(value: f64) -> Option<i64> {
    (value.fract() == 0.0 && value.abs() <= 9_007_199_254_740_991.0).then_some(value as i64)
}

fn range_int(value: &Value) -> Option<i64> {
    match value {
        Value::Int(i) => Some(*i),
        Value::Float(f) => integral(*f),
        _ => None,
    }
}

#[inline]
fn f32_round(value: f64) -> f64 {
    value as f32 as f64
}

/// Whether a text value (a string, or a case as its name) is all ASCII: a string's flag, a
/// case name's bytes.
#[inline]
fn text_is_ascii(value: &Value) -> bool {
    match value {
        Value::Str(text) => text.is_ascii(),
        other => other.as_text().is_some_and(str::is_ascii),
    }
}

#[cold]
fn unreachable_value() -> Value {
    Value::empty()
}

#[allow(dead_code)]
pub(crate) fn text_len_cost(text: &str) -> u64 {
    text_cost(text)
}

/// An operand of a fused loop body: the loop variable, or an integer fixed for the loop.
#[derive(Clone, Copy)]
enum Operand {
    Item,
    Const(i64),
}

/// A loop body fused by [`Machine::fused_body`].
#[derive(Clone, Copy)]
struct FusedBody {
    op: BinOp,
    lhs: Operand,
    rhs: Operand,
}

/// The decimal text of consecutive integers: the next one's made from the last one's by adding
/// one to its last digit and carrying, where writing each afresh takes a division per two
/// digits. A negative value is written afresh ([`int_digits`]); so is any step the digits
/// cannot take in place.
struct DecimalCounter {
    value: i64,
    digits: [u8; 20],
    /// Where the text starts in `digits` (it ends at the end).
    at: usize,
}

impl DecimalCounter {
    fn new(value: i64) -> DecimalCounter {
        let mut counter = DecimalCounter { value, digits: [0; 20], at: 0 };
        counter.write();
        counter
    }

    fn write(&mut self) {
        let len = int_digits(self.value, &mut self.digits).len();
        self.at = self.digits.len() - len;
    }

    /// Moves to the next integer (never called past `i64::MAX`: a range's items are integers).
    #[inline]
    fn step(&mut self) {
        let was = self.value;
        self.value = was.wrapping_add(1);
        if was < 0 {
            return self.write();
        }
        let mut at = self.digits.len();
        while let Some(next) = at.checked_sub(1).filter(|next| *next >= self.at) {
            at = next;
            if self.digits[at] != b'9' {
                self.digits[at] += 1;
                return;
            }
            self.digits[at] = b'0';
        }
        // Every digit was 9: one more in front, or written afresh where there is no room.
        match self.at.checked_sub(1) {
            Some(front) => {
                self.digits[front] = b'1';
                self.at = front;
            }
            None => self.write(),
        }
    }

    fn text(&self) -> &str {
        // SAFETY: only ASCII digits (and a leading '-' from `int_digits`) are ever written.
        unsafe { std::str::from_utf8_unchecked(&self.digits[self.at..]) }
    }
}

/// A loop body run fused: an integer operator ([`Machine::fused_body`]), or a text literal
/// joined to the loop variable's text ([`Machine::fused_text`]).
#[derive(Clone, Copy)]
enum Fused<'p> {
    Int(FusedBody),
    Text(&'p Text),
}

/// A range loop body whose text is placed in parts, its shape found once for the loop.
#[derive(Clone, Copy)]
enum TextBody<'p> {
    /// A text literal joined to a number conversion's text ([`Machine::literal_concat`]), in
    /// parts where the conversion's operand is an integer leaf.
    Literal { literal: &'p Text, lhs: u32, rhs: u32, operand: u32 },
    Conversion(Conversion),
}

/// A range loop body that is a text conversion ([`Machine::place_conversion`]): its operand,
/// its form, and the operand's operator and operands where it is a binary operator node.
#[derive(Clone, Copy)]
struct Conversion {
    operand: u32,
    form: TextForm,
    binary: Option<(BinOp, u32, u32)>,
}

/// A text made by a loop body, all its charges made, in two parts: a program literal (or
/// nothing) and a number's ASCII text in a [`Scratch`]. Packed items take the parts as they are.
struct TextParts<'t> {
    left: &'t str,
    left_ascii: bool,
    right: &'t str,
}

impl TextParts<'_> {
    fn into_value(self) -> Value {
        Value::Str(Text::concat(self.left, self.right, self.left_ascii))
    }
}

/// Room on the stack for a number's text, kept by a loop for all its items: a text is read
/// where it was written (copying a text just written byte by byte would wait on those writes).
struct Scratch {
    digits: [u8; 20],
    number: NumberText,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { digits: [0; 20], number: NumberText::new() }
    }

    fn int(&mut self, value: i64) -> &str {
        int_digits(value, &mut self.digits)
    }

    fn float64(&mut self, value: f64) -> &str {
        write_float64(value, &mut self.number);
        self.number.as_str()
    }
}

/// The items a range loop places ([`Machine::place_item`]): packed texts while every item is
/// a text (`texts` set), values (`values`) from the first item that is not.
struct Placed {
    values: Vec<Value>,
    texts: Option<Texts>,
    /// How many items to make room for at once.
    reserve: usize,
}

impl Placed {
    /// Values, with room for `reserve` of them.
    fn values(reserve: usize) -> Placed {
        Placed { values: Vec::with_capacity(reserve), texts: None, reserve }
    }

    /// Packed texts until an item is not one, with room for `reserve` of them made now when
    /// `surely` texts, else with the first text.
    fn texts(reserve: usize, surely: bool) -> Placed {
        let mut texts = Texts::default();
        if surely {
            texts.reserve(reserve, 0);
        }
        Placed { values: Vec::new(), texts: Some(texts), reserve }
    }

    /// From now on values: the texts placed so far turned into values first.
    fn unpack(&mut self) {
        if let Some(texts) = self.texts.take() {
            self.values = texts.into_values();
            self.values.reserve(self.reserve.saturating_sub(self.values.len()));
        }
    }

    fn into_value(self) -> Value {
        match self.texts {
            Some(texts) if texts.len() > 0 => Value::Seq(Rc::new(Items::packed(texts))),
            _ => Value::seq(self.values),
        }
    }
}

/// The number of characters in `value`'s decimal text.
fn decimal_width(value: i64) -> usize {
    let mut digits = [0u8; 20];
    int_digits(value, &mut digits).len()
}

/// Argument places held on the stack (more go on the heap).
const STACK_PLACES: usize = 8;

/// Runs `f` over `count` empty argument places, on the stack when they are few.
#[inline]
pub(crate) fn with_places<R>(count: usize, f: impl FnOnce(&mut [Option<Value>]) -> R) -> R {
    if count <= STACK_PLACES {
        let mut places: [Option<Value>; STACK_PLACES] = Default::default();
        return f(&mut places[..count]);
    }
    f(&mut vec![None; count])
}

/// Records of at most this many fields are constructed by [`Machine::construct_whole`].
const WHOLE_FIELDS: usize = 16;

/// Where each property of a construction goes among its record's fields, when the properties
/// are the fields, each written once, none with a default (so none is evaluated or bound).
#[inline]
fn every_field_written(props: &[(Name, u32)], fields: &[CField], places: &mut [u8; WHOLE_FIELDS]) -> bool {
    if props.len() != fields.len() || fields.len() > WHOLE_FIELDS {
        return false;
    }
    let mut written = 0u32;
    for ((name, _), place) in props.iter().zip(places.iter_mut()) {
        let Some(at) = fields.iter().position(|field| Name::ptr_eq(name, &field.name)) else { return false };
        if fields[at].default.is_some() || written & (1 << at) != 0 {
            return false;
        }
        written |= 1 << at;
        *place = at as u8;
    }
    true
}

/// The declaration position of the first field named `name`, `order` being the positions sorted
/// (stably) by name bytes: a binary search, the first of a run of equal names.
fn first_in_order(fields: &[CField], order: &[u32], name: &str) -> Option<usize> {
    let at = order.partition_point(|&i| fields[i as usize].name.as_bytes() < name.as_bytes());
    let position = *order.get(at)? as usize;
    (*fields[position].name == *name).then_some(position)
}

#[cfg(test)]
mod tests {
    use super::DecimalCounter;

    #[test]
    fn a_decimal_counter_counts_in_decimal() {
        // Runs across zero, every carry to a new digit up to 10^18, and up to i64::MAX, each
        // text the integer's decimal form (Rust's own `to_string`).
        let mut starts = vec![-1_005, i64::MIN, i64::MAX - 3];
        starts.extend((1..=18).map(|power| 10i64.pow(power) - 3));
        for start in starts {
            let mut counter = DecimalCounter::new(start);
            let mut value = start;
            loop {
                assert_eq!(counter.text(), value.to_string());
                if value == i64::MAX || value > start.saturating_add(2_010) {
                    break;
                }
                counter.step();
                value += 1;
            }
        }
    }
}
