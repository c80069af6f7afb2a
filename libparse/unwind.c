/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - DWARF post unwinding of user stacks (see unwind.h), with
 * elfutils libdwfl: one Dwfl per process, its modules the ELF files the
 * process maps, reported on demand; our own thread callbacks give libdwfl
 * the sample's registers and memory. The rules mirror perf 6.1 as Debian
 * builds it (facts, not code): it links libunwind, which wins over libdw
 * when both are there, so the x86-64 chains are libunwind's.
 *
 * Owns: the public API of unwind.h, the driver (ps_unwinder__user()) and
 * the frame callback. Rules kept here:
 *  - Only samples with user registers and a non-empty dynamic stack dump
 *    (PERF_SAMPLE_STACK_USER's dyn_size) are unwound.
 *  - The first address is the user ip register, as is. Each further frame
 *    gives its return address minus one, except a signal frame's (for
 *    libunwind "this frame is a signal trampoline"; libdwfl says so one
 *    frame later, as the caller's "activation" flag). At most max_stack
 *    addresses in all; zero addresses are skipped.
 *  - A return address of 0 is one more frame for libunwind, printed as
 *    0 - 1; libdwfl ends the chain there, so the frame is added after.
 *  - Where a frame's pc (less one, unless its callee is a signal frame or
 *    it is the first) is in no file perf reads (unwind_dso.c), or in one
 *    without .eh_frame_hdr, perf's libunwind stops: the frame is the last
 *    one. libdwfl would guess on from the frame pointer (ebl_unwind());
 *    frame_cb() stops it first.
 *
 * The rest is done below, one concern a file; none calls back up here:
 *   unwind_regs.c   perf's register numbers per arch; the first registers
 *   unwind_dso.c    the file perf reads a DSO from; the own [vdso]
 *   unwind_mem.c    memory as perf's access_mem() reads it
 *   unwind_gate.c   which processes perf unwinds (unwind__prepare_access)
 *   unwind_space.c  the Dwfl of each process and its modules
 *   unwind_guess.c  CFI rows; libunwind's guess where a file has no FDE
 *   unwind_base.c   where perf looks an FDE up (its table base)
 *   unwind_cache.c  libunwind's cache of the rows found, per process
 *   unwind_step.c   the fast walk: the same frames from CFI rows kept per
 *                   address, libdwfl's walk only where it gives up
 * unwind_int.h holds the unwinder's state they share.
 */
#include <stdio.h>
#include <sys/utsname.h>
#include "symbols_int.h"
#include "unwind_int.h"

int ps_unwind__wanted(const ps_sample *smp)
{
    return (smp->sample_type & PERF_SAMPLE_REGS_USER) &&
           (smp->sample_type & PERF_SAMPLE_STACK_USER) &&
           smp->regs_user.abi != 0 && smp->regs_user.nr != 0 &&
           smp->stack_dyn_size != 0 && smp->stack_data != NULL;
}

/* libdwfl's thread callbacks: a space has one thread, that of the sample
 * being unwound (sp->cur), whose registers and memory come from
 * unwind_regs.c and unwind_mem.c. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    struct space *sp = arg;

    (void)dwfl;
    if (*thread_argp != NULL || sp->cur == NULL)
        return 0;
    *thread_argp = sp;
    return (pid_t)sp->cur->smp->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
    struct space *sp = arg;

    (void)dwfl;
    if (sp->cur == NULL || (pid_t)sp->cur->smp->tid != tid)
        return false;
    *thread_argp = sp;
    return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .get_thread = get_thread,
    .memory_read = ps_unwind__memory_read,
    .set_initial_registers = ps_unwind__set_initial_registers,
};

/*
 * One frame, leaf first. libdwfl unwinds a frame with the FDE of its pc
 * (less one unless it is the first frame or its callee is a signal
 * frame), and without one guesses the caller from the frame pointer
 * (ebl_unwind()). perf's libunwind guesses too, but otherwise, and only
 * where the file has an FDE table that misses the pc; with no file there,
 * or no .eh_frame_hdr in it, its lookup fails outright and it stops. So
 * does the chain here, before libdwfl steps on: the frame's pc is kept,
 * and dwfl_frame_pc() is not asked whether it is an activation (which
 * would unwind it). On x86-64 libunwind's guess replaces libdwfl's
 * (ps_unwind__guess_caller()): the walk stops there, and the next one
 * starts from the guessed caller, whose pc libdwfl gets as the address to
 * look up. Where perf looks the FDE up is unwind_base.c's: a miss there
 * is a miss (a hit at another address is unwound with the pc's own row:
 * only unwind_step.c's walk uses the other one).
 *
 * For ps_unwinder__user() the last frame's row says where its return
 * address is saved, and each row whether the next lookup takes pc as is.
 * Reading the row again costs, so it is read only where libdwfl unwinds
 * the frame after this call (pc as is: the first frame, a signal frame's
 * caller) or where that unwinding read a 0 (a return address of 0 ends
 * the chain); elsewhere dwfl_frame_pc() has just unwound the frame, and
 * says whether its FDE is a signal frame's.
 */
/* Whether perf's libunwind finds an FDE for the frame at c->pcs[c->nr]
 * (unwind_base.c; recorded in its cache when it does). */
static int perf_finds(struct ctx *c, struct space *sp, struct module *md, uint64_t addr)
{
    uint64_t pc = c->pcs[c->nr], look;

    if (!ps_unwind__perf_lookup(c, md, pc, addr, &look) || !ps_unwind__has_fde(sp->dwfl, look))
        return 0;
    ps_unwind__cache_put(c->luc, pc, look);
    return 1;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
    struct space *sp = arg;
    struct ctx *c = sp->cur;
    bool act, resumed = c->resumed && c->nr == c->walk_start;
    bool callee_signal = !resumed && (c->nr == 0 || c->signal);
    bool as_is = resumed || callee_signal;
    struct module *md;
    Dwarf_Addr pc, addr;
    uint64_t nr_zero = c->nr_zero;
    int g;

    if (!dwfl_frame_pc(state, &pc, NULL))
        return DWARF_CB_ABORT;
    c->pcs[c->nr] = resumed ? c->resume_pc : pc;
    addr = as_is ? pc : pc - 1;
    c->has_ra_slot = 0;
    if ((md = ps_unwind__mod_at(sp, addr)) == NULL || !md->eh_frame_hdr) {
        c->act[c->nr++] = callee_signal;
        return DWARF_CB_ABORT;
    }
    if (c->arch->pc_is_dwarf &&
        !perf_finds(c, sp, md, addr) &&
        (g = ps_unwind__guess_caller(c, state, c->pcs[c->nr],
                                     resumed ? c->resume_as_is : as_is)) >= 0) {
        c->act[c->nr++] = callee_signal;
        if (g == 0 || c->nr >= c->max)
            return DWARF_CB_ABORT;
        if (c->resume_pc == 0) {        /* one more frame for libunwind, the last */
            c->pcs[c->nr] = 0;
            c->act[c->nr++] = 0;
            return DWARF_CB_ABORT;
        }
        c->resume = 1;
        return DWARF_CB_ABORT;
    }
    if (!dwfl_frame_pc(state, &pc, &act))
        return DWARF_CB_ABORT;
    if (as_is || c->nr_zero != nr_zero) {
        ps_unwind__note_row(c, sp->dwfl, state, addr);
    } else {
        c->signal = act;
    }
    c->act[c->nr] = resumed ? 0 : act;
    if (++c->nr >= c->max)
        return DWARF_CB_ABORT;
    return DWARF_CB_OK;
}

static int scratch_reserve(ps_unwinder *u, size_t n)
{
    uint64_t *p;
    uint8_t *a;

    if (n <= u->cap)
        return 0;
    if ((p = realloc(u->pcs, n * sizeof(*p))) == NULL)
        return -1;
    u->pcs = p;
    if ((a = realloc(u->act, n)) == NULL)
        return -1;
    u->act = a;
    u->cap = n;
    return 0;
}

void ps_unwinder__note_sample(ps_unwinder *u, const ps_sample *smp)
{
    if (!u->seen_sample) {      /* the sample that gives perf its arch (unwind_gate.c) */
        u->seen_sample = 1;
        u->first_sample = smp->time;
    }
}

int ps_unwinder__wants(ps_unwinder *u, const ps_sample *smp, uint64_t t)
{
    ps_unwinder__note_sample(u, smp);
    return ps_unwind__wanted(smp) &&
           ps_unwind__gate_open(u, ps_machine__user_maps(u->m, smp->pid, smp->tid, t), t);
}

size_t ps_unwinder__user(ps_unwinder *u, const ps_sample *smp, uint64_t t,
                         uint64_t *ips, size_t max)
{
    struct space *sp;
    struct ctx c;
    uint64_t ip, ip0, dyn;
    size_t i, n = 0;
    int rc;

    ps_unwinder__note_sample(u, smp);
    if (max == 0 || !ps_unwind__wanted(smp) ||
        !ps_unwind__gate_open(u, ps_machine__user_maps(u->m, smp->pid, smp->tid, t), t))
        return 0;
    memset(&c, 0, sizeof(c));
    c.u = u;
    c.smp = smp;
    c.t = t;
    c.arch = ps_unwind__capture_arch(u);
    if (ps_unwind__reg_value(&smp->regs_user, c.arch->perf_ip, &ip) < 0)
        return 0;
    dyn = smp->stack_dyn_size < smp->stack_size ? smp->stack_dyn_size : smp->stack_size;
    if (ps_unwind__reg_value(&smp->regs_user, c.arch->perf_sp, &c.sp) < 0 || c.sp + dyn < c.sp)
        dyn = 0;
    c.stack_end = c.sp + dyn;
    /* one frame past max tells whether the last one is a signal frame */
    if (max == 1 || scratch_reserve(u, max + 1) < 0 ||
        (sp = ps_unwind__space_get(u, smp->pid)) == NULL)
        goto first_only;
    c.pcs = u->pcs;
    c.act = u->act;
    c.max = max + 1;
    if (c.arch->pc_is_dwarf)
        c.luc = ps_unwind__cache_for(u, smp->pid, smp->tid, t);
    /* the fast walk once libdwfl has a thread here (unwind_step.c); a
     * process's first sample attaches it first */
    if (sp->attached && (rc = ps_unwind__step_walk(u, sp, &c)) >= 0)
        goto walked;
    c.nr = 0;
    c.signal = false;
    c.has_ra_slot = 0;
    c.nr_zero = 0;
    if (ps_unwind__report_sample(u, sp, &c) < 0 || sp->nr_mods == 0)
        goto first_only;
    if (!sp->attached) {
        if (!dwfl_attach_state(sp->dwfl, NULL, (pid_t)smp->pid, &thread_callbacks, sp)) {
            ps_unwind__space_reset(sp);
            goto first_only;
        }
        sp->attached = 1;
        if ((rc = ps_unwind__step_walk(u, sp, &c)) >= 0)
            goto walked;
        c.nr = 0;
        c.signal = false;
        c.has_ra_slot = 0;
        c.nr_zero = 0;
    }
    sp->cur = &c;
    /* libdwfl ends a chain at a return address of 0; libunwind takes it
     * as one more frame (perf prints 0 - 1), and stops after it */
    rc = dwfl_getthread_frames(sp->dwfl, (pid_t)smp->tid, frame_cb, sp);
    while (c.resume) {                  /* on from a guessed caller */
        c.resume = 0;
        c.resumed = 1;
        c.walk_start = c.nr;
        rc = dwfl_getthread_frames(sp->dwfl, (pid_t)smp->tid, frame_cb, sp);
    }
    sp->cur = NULL;
walked:
    if (rc == 0 && c.nr > 0 && c.nr < c.max && c.has_ra_slot &&
        ps_unwind__read_word(&c, c.ra_slot, &ip0) == 0 && ip0 == 0) {
        c.pcs[c.nr] = 0;
        c.act[c.nr++] = c.signal;
    }
    if (c.nr == 0)
        return ip != 0 ? (ips[0] = ip, 1) : 0;
    for (i = 0; i < c.nr && i < max; i++) {
        uint64_t pc = c.pcs[i];
        int signal = i + 1 < c.nr && c.act[i + 1];

        if (i > 0 && !signal)
            pc--;
        if (pc != 0)
            ips[n++] = pc;
    }
    return n;

first_only:
    if (ip == 0)
        return 0;
    ips[0] = ip;
    return 1;
}

int ps_unwinder__new(ps_unwinder **out, const ps_machine *m, const ps_features *feat,
                     ps_symbols *syms, ps_error *err)
{
    ps_unwinder *u = calloc(1, sizeof(*u));
    struct utsname uts;

    *out = NULL;
    if (u == NULL)
        return ps_error__set(err, PS_ENOMEM, PS_NO_OFFSET, "unwind: out of memory");
    ps_arena__init(&u->arena);
    ps_u64map__init(&u->caches);
    ps_u64map__init(&u->file_v_at);
    u->m = m;
    u->feat = feat;
    u->syms = syms;
    u->symfs = syms != NULL ? syms->symfs : "";
    if (uname(&uts) == 0)
        snprintf(u->host_arch, sizeof(u->host_arch), "%s", uts.machine);
    elf_version(EV_CURRENT);
    *out = u;
    return PS_OK;
}

void ps_unwinder__free(ps_unwinder *u)
{
    size_t i;

    if (u == NULL)
        return;
    for (i = 0; i < NR_SPACES; i++) {
        ps_unwind__space_reset(&u->spaces[i]);
        ps_unwind__rows_free(&u->spaces[i]);
        free(u->spaces[i].mods);
        free(u->spaces[i].seen);
    }
    ps_unwind__caches_free(u);
    ps_unwind__mem_free(u);
    free(u->pcs);
    free(u->act);
    free(u->vdso);
    free(u->files.buckets);
    free(u->gates.buckets);
    ps_arena__free(&u->arena);
    free(u);
}
