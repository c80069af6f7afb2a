-- SPDX-License-Identifier: MIT
--
-- sqlite.sql - the database `perfsift sqlite` writes. This file is the
-- schema: cmd/sqlite_db.c embeds it at build time and runs its sections;
-- the C code only inserts rows.
--
-- Part 1 is the schema of perf's export-to-sqlite.py (perf 6.1, run with
-- `all calls callchains`; shared/spec/peers.md section 3): the same tables,
-- columns, declared types and views, so that queries written for it and
-- perf's exported-sql-viewer.py work unchanged. Every table has a row with
-- id 0 meaning "unknown". Values are what perf's db-export layer hands the
-- script: addresses are 64-bit integers stored signed (a kernel address is
-- negative), a sample without PERF_SAMPLE_CPU has cpu -1.
--
-- Part 2 is what perfsift adds: the capture itself (header, events, mmaps,
-- the comm/thread timeline, the non-sample records) and views with the
-- period, weight and call chain of each sample. Every perfsift table has a
-- capture_id; export-to-sqlite's tables reach theirs through machine_id
-- (each capture gets its own machines row, see `captures`).
--
-- Tracepoint samples also get a table per event, made at run time from the
-- event's format in the capture, so they cannot be written down here:
--   tracepoint_<system>_<event>(sample_id integer PRIMARY KEY = samples.id,
--                               <field> ... one column per format field)
-- common_* fields included, integers as integer, strings as text and
-- arrays as blob (the bytes as recorded). Appending a capture whose format
-- has more fields adds the missing columns.
--
-- Sections, run by name (a line "-- @section NAME" starts one):
--   create  every run: tables and views (IF NOT EXISTS, so --append can run
--           it on an existing database and get back what a previous run
--           dropped as empty)
--   fill    only on a new database: the id-0 rows and branch_types
--   finish  at the end of every run, in the same transaction
-- After `finish` the program drops the export-to-sqlite tables that are
-- empty the way the script does (ptwrite; mwait, pwre, exstop, pwrx and then
-- cbr; context_switches), with their views.

-- @section create

-- ===== Part 1: export-to-sqlite.py ========================================

-- One row per event (evsel) samples were seen for; name as perf prints it.
CREATE TABLE IF NOT EXISTS selected_events (
    id          integer         NOT NULL    PRIMARY KEY,
    name        varchar(80));

-- The machine of the samples: the host has pid -1 and an empty root_dir.
CREATE TABLE IF NOT EXISTS machines (
    id          integer         NOT NULL    PRIMARY KEY,
    pid         integer,
    root_dir    varchar(4096));

-- Threads as perf knows them when a sample or switch names them;
-- process_id is the threads.id of the process's main thread (0: unknown).
CREATE TABLE IF NOT EXISTS threads (
    id          integer         NOT NULL    PRIMARY KEY,
    machine_id  bigint,
    process_id  bigint,
    pid         integer,
    tid         integer);

-- One row per comm a thread had (perf's struct comm); c_time is when it was
-- set, exec_flag whether it came with an exec. has_calls: 1 for comms that
-- appear in calls (export-to-sqlite adds it at the end, with `calls`).
CREATE TABLE IF NOT EXISTS comms (
    id          integer         NOT NULL    PRIMARY KEY,
    comm        varchar(16),
    c_thread_id bigint,
    c_time      bigint,
    exec_flag   boolean,
    has_calls   boolean);

-- Which threads had which comms.
CREATE TABLE IF NOT EXISTS comm_threads (
    id          integer         NOT NULL    PRIMARY KEY,
    comm_id     bigint,
    thread_id   bigint);

-- Shared objects, the kernel and its modules, JIT maps: perf's dsos.
CREATE TABLE IF NOT EXISTS dsos (
    id          integer         NOT NULL    PRIMARY KEY,
    machine_id  bigint,
    short_name  varchar(256),
    long_name   varchar(4096),
    build_id    varchar(64));

-- Symbols, addresses relative to their dso as perf keeps them; binding
-- 0 local, 1 global, 2 weak. An address no symbol covers gets a zero-size
-- symbol named "unknown" at that address, as perf makes one.
CREATE TABLE IF NOT EXISTS symbols (
    id          integer         NOT NULL    PRIMARY KEY,
    dso_id      bigint,
    sym_start   bigint,
    sym_end     bigint,
    binding     integer,
    name        varchar(2048));

-- Names of the sample flags' branch kinds (perf's PERF_IP_FLAG_* values).
CREATE TABLE IF NOT EXISTS branch_types (
    id          integer         NOT NULL    PRIMARY KEY,
    name        varchar(80));

-- One row per sample, numbered in perf's delivery order. to_* are the
-- sample's addr and, for page-fault and branch events, its symbol.
-- data_src is 84410401 (PERF_MEM_DATA_SRC_NONE) when not sampled.
CREATE TABLE IF NOT EXISTS samples (
    id              integer     NOT NULL    PRIMARY KEY,
    evsel_id        bigint,
    machine_id      bigint,
    thread_id       bigint,
    comm_id         bigint,
    dso_id          bigint,
    symbol_id       bigint,
    sym_offset      bigint,
    ip              bigint,
    time            bigint,
    cpu             integer,
    to_dso_id       bigint,
    to_symbol_id    bigint,
    to_sym_offset   bigint,
    to_ip           bigint,
    period          bigint,
    weight          bigint,
    transaction_    bigint,
    data_src        bigint,
    branch_type     integer,
    in_tx           boolean,
    call_path_id    bigint,
    insn_count      bigint,
    cyc_count       bigint,
    flags           integer);

-- The call tree of every sample's call chain, deduplicated: a row per
-- (parent, symbol) with ip 0, or per (parent, address) for a frame in no
-- map. Row 1 is the root. samples.call_path_id is the leaf.
CREATE TABLE IF NOT EXISTS call_paths (
    id          integer         NOT NULL    PRIMARY KEY,
    parent_id   bigint,
    symbol_id   bigint,
    ip          bigint);

-- Calls and returns of branch traces (Intel PT, BTS): perfsift does not
-- reconstruct them; the table has its id-0 row only.
CREATE TABLE IF NOT EXISTS calls (
    id                  integer     NOT NULL    PRIMARY KEY,
    thread_id           bigint,
    comm_id             bigint,
    call_path_id        bigint,
    call_time           bigint,
    return_time         bigint,
    branch_count        bigint,
    call_id             bigint,
    return_id           bigint,
    parent_call_path_id bigint,
    flags               integer,
    parent_id           bigint,
    insn_count          bigint,
    cyc_count           bigint);
CREATE INDEX IF NOT EXISTS pcpid_idx ON calls (parent_call_path_id);
CREATE INDEX IF NOT EXISTS pid_idx ON calls (parent_id);

-- Intel PT synthesized events (PERF_TYPE_SYNTH), keyed by samples.id.
CREATE TABLE IF NOT EXISTS ptwrite (
    id          integer         NOT NULL    PRIMARY KEY,
    payload     bigint,
    exact_ip    integer);
CREATE TABLE IF NOT EXISTS cbr (
    id          integer         NOT NULL    PRIMARY KEY,
    cbr         integer,
    mhz         integer,
    percent     integer);
CREATE TABLE IF NOT EXISTS mwait (
    id          integer         NOT NULL    PRIMARY KEY,
    hints       integer,
    extensions  integer);
CREATE TABLE IF NOT EXISTS pwre (
    id          integer         NOT NULL    PRIMARY KEY,
    cstate      integer,
    subcstate   integer,
    hw          integer);
CREATE TABLE IF NOT EXISTS exstop (
    id          integer         NOT NULL    PRIMARY KEY,
    exact_ip    integer);
CREATE TABLE IF NOT EXISTS pwrx (
    id              integer     NOT NULL    PRIMARY KEY,
    deepest_cstate  integer,
    last_cstate     integer,
    wake_reason     integer);

-- SWITCH and SWITCH_CPU_WIDE records; flags 0 in, 1 out, 3 out preempt.
-- A switch where neither side is a known thread (or one is idle) is left
-- out, as perf does.
CREATE TABLE IF NOT EXISTS context_switches (
    id              integer     NOT NULL    PRIMARY KEY,
    machine_id      bigint,
    time            bigint,
    cpu             integer,
    thread_out_id   bigint,
    comm_out_id     bigint,
    thread_in_id    bigint,
    comm_in_id      bigint,
    flags           integer);

CREATE VIEW IF NOT EXISTS machines_view AS
SELECT id, pid, root_dir,
       CASE WHEN id = 0 THEN 'unknown' WHEN pid = -1 THEN 'host' ELSE 'guest' END
           AS host_or_guest
FROM machines;

CREATE VIEW IF NOT EXISTS dsos_view AS
SELECT id, machine_id,
       (SELECT host_or_guest FROM machines_view WHERE id = machine_id) AS host_or_guest,
       short_name, long_name, build_id
FROM dsos;

CREATE VIEW IF NOT EXISTS symbols_view AS
SELECT id, name,
       (SELECT short_name FROM dsos WHERE id = dso_id) AS dso,
       dso_id, sym_start, sym_end,
       CASE WHEN binding = 0 THEN 'local' WHEN binding = 1 THEN 'global' ELSE 'weak' END
           AS binding
FROM symbols;

CREATE VIEW IF NOT EXISTS threads_view AS
SELECT id, machine_id,
       (SELECT host_or_guest FROM machines_view WHERE id = machine_id) AS host_or_guest,
       process_id, pid, tid
FROM threads;

CREATE VIEW IF NOT EXISTS comm_threads_view AS
SELECT comm_id,
       (SELECT comm FROM comms WHERE id = comm_id) AS command,
       thread_id,
       (SELECT pid FROM threads WHERE id = thread_id) AS pid,
       (SELECT tid FROM threads WHERE id = thread_id) AS tid
FROM comm_threads;

CREATE VIEW IF NOT EXISTS call_paths_view AS
SELECT c.id, printf('%x', c.ip) AS ip, c.symbol_id,
       (SELECT name FROM symbols WHERE id = c.symbol_id) AS symbol,
       (SELECT dso_id FROM symbols WHERE id = c.symbol_id) AS dso_id,
       (SELECT dso FROM symbols_view WHERE id = c.symbol_id) AS dso_short_name,
       c.parent_id, printf('%x', p.ip) AS parent_ip, p.symbol_id AS parent_symbol_id,
       (SELECT name FROM symbols WHERE id = p.symbol_id) AS parent_symbol,
       (SELECT dso_id FROM symbols WHERE id = p.symbol_id) AS parent_dso_id,
       (SELECT dso FROM symbols_view WHERE id = p.symbol_id) AS parent_dso_short_name
FROM call_paths c INNER JOIN call_paths p ON p.id = c.parent_id;

CREATE VIEW IF NOT EXISTS calls_view AS
SELECT calls.id, thread_id,
       (SELECT pid FROM threads WHERE id = thread_id) AS pid,
       (SELECT tid FROM threads WHERE id = thread_id) AS tid,
       (SELECT comm FROM comms WHERE id = comm_id) AS command,
       call_path_id, printf('%x', ip) AS ip, symbol_id,
       (SELECT name FROM symbols WHERE id = symbol_id) AS symbol,
       call_time, return_time, return_time - call_time AS elapsed_time,
       branch_count, insn_count, cyc_count,
       CASE WHEN cyc_count = 0 THEN CAST(0 AS FLOAT)
            ELSE ROUND(CAST(insn_count AS FLOAT) / cyc_count, 2) END AS IPC,
       call_id, return_id,
       CASE WHEN flags = 0 THEN '' WHEN flags = 1 THEN 'no call'
            WHEN flags = 2 THEN 'no return' WHEN flags = 3 THEN 'no call/return'
            WHEN flags = 6 THEN 'jump' ELSE flags END AS flags,
       parent_call_path_id, calls.parent_id
FROM calls INNER JOIN call_paths ON call_paths.id = call_path_id;

CREATE VIEW IF NOT EXISTS samples_view AS
SELECT id, time, cpu,
       (SELECT pid FROM threads WHERE id = thread_id) AS pid,
       (SELECT tid FROM threads WHERE id = thread_id) AS tid,
       (SELECT comm FROM comms WHERE id = comm_id) AS command,
       (SELECT name FROM selected_events WHERE id = evsel_id) AS event,
       printf('%x', ip) AS ip_hex,
       (SELECT name FROM symbols WHERE id = symbol_id) AS symbol,
       sym_offset,
       (SELECT short_name FROM dsos WHERE id = dso_id) AS dso_short_name,
       printf('%x', to_ip) AS to_ip_hex,
       (SELECT name FROM symbols WHERE id = to_symbol_id) AS to_symbol,
       to_sym_offset,
       (SELECT short_name FROM dsos WHERE id = to_dso_id) AS to_dso_short_name,
       (SELECT name FROM branch_types WHERE id = branch_type) AS branch_type_name,
       in_tx, insn_count, cyc_count,
       CASE WHEN cyc_count = 0 THEN CAST(0 AS FLOAT)
            ELSE ROUND(CAST(insn_count AS FLOAT) / cyc_count, 2) END AS IPC,
       flags
FROM samples;

CREATE VIEW IF NOT EXISTS ptwrite_view AS
SELECT ptwrite.id, time, cpu, printf('%x', payload) AS payload_hex,
       CASE WHEN exact_ip = 0 THEN 'False' ELSE 'True' END AS exact_ip
FROM ptwrite INNER JOIN samples ON samples.id = ptwrite.id;

CREATE VIEW IF NOT EXISTS cbr_view AS
SELECT cbr.id, time, cpu, cbr, mhz, percent
FROM cbr INNER JOIN samples ON samples.id = cbr.id;

CREATE VIEW IF NOT EXISTS mwait_view AS
SELECT mwait.id, time, cpu, printf('%x', hints) AS hints_hex,
       printf('%x', extensions) AS extensions_hex
FROM mwait INNER JOIN samples ON samples.id = mwait.id;

CREATE VIEW IF NOT EXISTS pwre_view AS
SELECT pwre.id, time, cpu, cstate, subcstate,
       CASE WHEN hw = 0 THEN 'False' ELSE 'True' END AS hw
FROM pwre INNER JOIN samples ON samples.id = pwre.id;

CREATE VIEW IF NOT EXISTS exstop_view AS
SELECT exstop.id, time, cpu,
       CASE WHEN exact_ip = 0 THEN 'False' ELSE 'True' END AS exact_ip
FROM exstop INNER JOIN samples ON samples.id = exstop.id;

CREATE VIEW IF NOT EXISTS pwrx_view AS
SELECT pwrx.id, time, cpu, deepest_cstate, last_cstate,
       CASE WHEN wake_reason = 1 THEN 'Interrupt'
            WHEN wake_reason = 2 THEN 'Timer Deadline'
            WHEN wake_reason = 4 THEN 'Monitored Address'
            WHEN wake_reason = 8 THEN 'HW'
            ELSE wake_reason END AS wake_reason
FROM pwrx INNER JOIN samples ON samples.id = pwrx.id;

CREATE VIEW IF NOT EXISTS power_events_view AS
SELECT samples.id, time, cpu, selected_events.name AS event,
       CASE WHEN selected_events.name = 'cbr'
            THEN (SELECT cbr FROM cbr WHERE cbr.id = samples.id) ELSE '' END AS cbr,
       CASE WHEN selected_events.name = 'cbr'
            THEN (SELECT mhz FROM cbr WHERE cbr.id = samples.id) ELSE '' END AS mhz,
       CASE WHEN selected_events.name = 'cbr'
            THEN (SELECT percent FROM cbr WHERE cbr.id = samples.id) ELSE '' END AS percent,
       CASE WHEN selected_events.name = 'mwait'
            THEN (SELECT printf('%x', hints) FROM mwait WHERE mwait.id = samples.id)
            ELSE '' END AS hints_hex,
       CASE WHEN selected_events.name = 'mwait'
            THEN (SELECT printf('%x', extensions) FROM mwait WHERE mwait.id = samples.id)
            ELSE '' END AS extensions_hex,
       CASE WHEN selected_events.name = 'pwre'
            THEN (SELECT cstate FROM pwre WHERE pwre.id = samples.id) ELSE '' END AS cstate,
       CASE WHEN selected_events.name = 'pwre'
            THEN (SELECT subcstate FROM pwre WHERE pwre.id = samples.id)
            ELSE '' END AS subcstate,
       CASE WHEN selected_events.name = 'pwre'
            THEN (SELECT hw FROM pwre WHERE pwre.id = samples.id) ELSE '' END AS hw,
       CASE WHEN selected_events.name = 'exstop'
            THEN (SELECT exact_ip FROM exstop WHERE exstop.id = samples.id)
            ELSE '' END AS exact_ip,
       CASE WHEN selected_events.name = 'pwrx'
            THEN (SELECT deepest_cstate FROM pwrx WHERE pwrx.id = samples.id)
            ELSE '' END AS deepest_cstate,
       CASE WHEN selected_events.name = 'pwrx'
            THEN (SELECT last_cstate FROM pwrx WHERE pwrx.id = samples.id)
            ELSE '' END AS last_cstate,
       CASE WHEN selected_events.name = 'pwrx'
            THEN (SELECT CASE WHEN wake_reason = 1 THEN 'Interrupt'
                              WHEN wake_reason = 2 THEN 'Timer Deadline'
                              WHEN wake_reason = 4 THEN 'Monitored Address'
                              WHEN wake_reason = 8 THEN 'HW'
                              ELSE wake_reason END
                  FROM pwrx WHERE pwrx.id = samples.id)
            ELSE '' END AS wake_reason
FROM samples INNER JOIN selected_events ON selected_events.id = evsel_id
WHERE selected_events.name IN ('cbr', 'mwait', 'exstop', 'pwre', 'pwrx');

CREATE VIEW IF NOT EXISTS context_switches_view AS
SELECT context_switches.id, context_switches.machine_id, context_switches.time,
       context_switches.cpu,
       th_out.pid AS pid_out, th_out.tid AS tid_out, comm_out.comm AS comm_out,
       th_in.pid AS pid_in, th_in.tid AS tid_in, comm_in.comm AS comm_in,
       CASE WHEN context_switches.flags = 0 THEN 'in'
            WHEN context_switches.flags = 1 THEN 'out'
            WHEN context_switches.flags = 3 THEN 'out preempt'
            ELSE context_switches.flags END AS flags
FROM context_switches
INNER JOIN threads AS th_out ON th_out.id = context_switches.thread_out_id
INNER JOIN threads AS th_in ON th_in.id = context_switches.thread_in_id
INNER JOIN comms AS comm_out ON comm_out.id = context_switches.comm_out_id
INNER JOIN comms AS comm_in ON comm_in.id = context_switches.comm_in_id;

-- ===== Part 2: perfsift ====================================================

-- One row per capture written into the database (--append adds more).
-- machine_id is the capture's host machine: samples, threads, dsos and
-- context_switches belong to the capture whose machine_id they carry.
-- The header fields come from the capture's features (NULL when absent);
-- first_time/last_time are those of its samples.
CREATE TABLE IF NOT EXISTS captures (
    id              integer     NOT NULL    PRIMARY KEY,
    path            text,
    machine_id      bigint,
    hostname        text,
    os_release      text,
    perf_version    text,
    arch            text,
    cpu_desc        text,
    nr_cpus_online  integer,
    nr_cpus_avail   integer,
    total_mem       bigint,
    cmdline         text,
    data_size       bigint,
    nr_records      bigint,
    nr_samples      bigint,
    first_time      bigint,
    last_time       bigint,
    exported_at     text);

-- The capture's header as `perf report --header-only -I` prints it, a row
-- per line (perfsift info --header).
CREATE TABLE IF NOT EXISTS header (
    capture_id      bigint,
    line            integer,
    text            text);

-- Every event (attr) of the capture; evsel_id is its selected_events.id,
-- 0 when no sample of it was seen (selected_events has only those).
-- attr_flags are perf_event_attr's bit fields (disabled = bit 0 ...).
CREATE TABLE IF NOT EXISTS events (
    id                  integer     NOT NULL    PRIMARY KEY,
    capture_id          bigint,
    evsel_id            bigint,
    name                text,
    type                integer,
    config              bigint,
    sample_period       bigint,
    freq                integer,
    sample_type         bigint,
    read_format         bigint,
    branch_sample_type  bigint,
    attr_flags          bigint,
    nr_ids              bigint);

-- MMAP and MMAP2 records: what was mapped where, when (cpumode 1 kernel,
-- 2 user, see PERF_RECORD_MISC_*). The MMAP2 fields are NULL for MMAP.
CREATE TABLE IF NOT EXISTS mmaps (
    id              integer     NOT NULL    PRIMARY KEY,
    capture_id      bigint,
    time            bigint,
    cpu             integer,
    cpumode         integer,
    pid             integer,
    tid             integer,
    start           bigint,
    len             bigint,
    pgoff           bigint,
    maj             integer,
    min             integer,
    ino             bigint,
    ino_generation  bigint,
    prot            integer,
    flags           integer,
    build_id        text,
    filename        text);

-- The comm/thread timeline: COMM (comm, exec_flag), FORK (ppid, ptid) and
-- EXIT records in delivery order.
CREATE TABLE IF NOT EXISTS thread_events (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    cpu         integer,
    kind        text,
    pid         integer,
    tid         integer,
    ppid        integer,
    ptid        integer,
    comm        text,
    exec_flag   boolean);

-- LOST (stream_id of the event, lost = records) and LOST_SAMPLES (lost =
-- samples) records.
CREATE TABLE IF NOT EXISTS lost (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    cpu         integer,
    kind        text,
    stream_id   bigint,
    lost        bigint);

-- THROTTLE and UNTHROTTLE records.
CREATE TABLE IF NOT EXISTS throttle (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    cpu         integer,
    kind        text,
    event_id    bigint,
    stream_id   bigint);

-- CGROUP records: cgroup id to path (samples' PERF_SAMPLE_CGROUP ids).
CREATE TABLE IF NOT EXISTS cgroups (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    cgroup_id   bigint,
    path        text);

-- NAMESPACES records, one row per namespace link (ns: its index, name:
-- net, uts, ipc, pid, user, mnt, cgroup as the kernel orders them).
CREATE TABLE IF NOT EXISTS namespaces (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    pid         integer,
    tid         integer,
    ns          integer,
    name        text,
    dev         bigint,
    ino         bigint);

-- KSYMBOL records: kernel symbols registered or unregistered (flags 1)
-- during the capture, BPF programs and trampolines.
CREATE TABLE IF NOT EXISTS ksymbols (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    addr        bigint,
    len         integer,
    ksym_type   integer,
    flags       integer,
    name        text);

-- BPF_EVENT records: programs loaded (type 1) and unloaded (2).
CREATE TABLE IF NOT EXISTS bpf_events (
    id          integer     NOT NULL    PRIMARY KEY,
    capture_id  bigint,
    time        bigint,
    type        integer,
    flags       integer,
    prog_id     integer,
    tag         text);

-- The call chain of each call path as text, root first, frames joined by
-- ';' (symbol names, or the hex address of a frame in no map): the
-- stackcollapse form.
CREATE VIEW IF NOT EXISTS call_path_chains_view AS
WITH RECURSIVE up(leaf, node, depth) AS (
    SELECT id, id, 0 FROM call_paths WHERE id > 1
    UNION ALL
    SELECT up.leaf, c.parent_id, up.depth + 1
    FROM up JOIN call_paths c ON c.id = up.node
    WHERE c.parent_id > 1)
SELECT leaf AS call_path_id,
       group_concat(frame, ';') AS chain
FROM (SELECT up.leaf, up.depth,
             CASE WHEN c.symbol_id != 0 THEN s.name ELSE printf('%x', c.ip) END AS frame
      FROM up JOIN call_paths c ON c.id = up.node
      LEFT JOIN symbols s ON s.id = c.symbol_id
      ORDER BY up.leaf, up.depth DESC)
GROUP BY leaf;

-- Samples with what samples_view leaves out: the event name, period,
-- weight, data_src and the call chain (root first, see above).
CREATE VIEW IF NOT EXISTS samples_detail_view AS
SELECT s.id, s.time, s.cpu,
       (SELECT pid FROM threads WHERE id = s.thread_id) AS pid,
       (SELECT tid FROM threads WHERE id = s.thread_id) AS tid,
       (SELECT comm FROM comms WHERE id = s.comm_id) AS command,
       (SELECT name FROM selected_events WHERE id = s.evsel_id) AS event,
       printf('%x', s.ip) AS ip_hex,
       (SELECT name FROM symbols WHERE id = s.symbol_id) AS symbol,
       s.sym_offset,
       (SELECT short_name FROM dsos WHERE id = s.dso_id) AS dso_short_name,
       s.period, s.weight, s.data_src, s.transaction_,
       (SELECT chain FROM call_path_chains_view WHERE call_path_id = s.call_path_id)
           AS callchain
FROM samples s WHERE s.id != 0;

-- Period per event and thread: what `perf report --sort comm,pid` sums.
CREATE VIEW IF NOT EXISTS period_by_thread_view AS
SELECT (SELECT name FROM selected_events WHERE id = s.evsel_id) AS event,
       t.pid, t.tid, (SELECT comm FROM comms WHERE id = s.comm_id) AS command,
       count(*) AS nr_samples, sum(s.period) AS period
FROM samples s JOIN threads t ON t.id = s.thread_id
WHERE s.id != 0
GROUP BY s.evsel_id, s.thread_id, s.comm_id;

-- Period per event and symbol: what `perf report --sort dso,sym` sums.
CREATE VIEW IF NOT EXISTS period_by_symbol_view AS
SELECT (SELECT name FROM selected_events WHERE id = s.evsel_id) AS event,
       (SELECT short_name FROM dsos WHERE id = s.dso_id) AS dso_short_name,
       (SELECT name FROM symbols WHERE id = s.symbol_id) AS symbol,
       count(*) AS nr_samples, sum(s.period) AS period
FROM samples s
WHERE s.id != 0
GROUP BY s.evsel_id, s.dso_id, s.symbol_id;

-- @section fill

-- id 0 means "unknown" in every table
INSERT INTO selected_events VALUES (0, 'unknown');
INSERT INTO machines VALUES (0, 0, 'unknown');
INSERT INTO threads VALUES (0, 0, 0, -1, -1);
INSERT INTO comms VALUES (0, 'unknown', 0, 0, 0, NULL);
INSERT INTO dsos VALUES (0, 0, 'unknown', 'unknown', '');
INSERT INTO symbols VALUES (0, 0, 0, 0, 0, 'unknown');
INSERT INTO samples VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                            0, 0, 0, 0);
INSERT INTO call_paths VALUES (0, 0, 0, 0);
INSERT INTO calls VALUES (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

-- PERF_IP_FLAG_* combinations: BRANCH 1, CALL 2, RETURN 4, CONDITIONAL 8,
-- SYSCALLRET 16, ASYNC 32, INTERRUPT 64, TX_ABORT 128, TRACE_BEGIN 256,
-- TRACE_END 512, VMENTRY 2048, VMEXIT 4096; each kind also with trace
-- begin and trace end.
INSERT INTO branch_types VALUES
    (0, 'no branch'), (1, 'unconditional jump'), (3, 'call'), (5, 'return'),
    (9, 'conditional jump'), (19, 'system call'), (21, 'return from system call'),
    (33, 'asynchronous branch'), (67, 'software interrupt'),
    (69, 'return from interrupt'), (99, 'hardware interrupt'),
    (129, 'transaction abort'),
    (256, 'trace begin / no branch'), (257, 'trace begin'), (259, 'trace begin / call'),
    (261, 'trace begin / return'), (265, 'trace begin / conditional jump'),
    (275, 'trace begin / system call'), (277, 'trace begin / return from system call'),
    (289, 'trace begin / asynchronous branch'), (323, 'trace begin / software interrupt'),
    (325, 'trace begin / return from interrupt'),
    (355, 'trace begin / hardware interrupt'), (385, 'trace begin / transaction abort'),
    (512, 'no branch / trace end'), (513, 'trace end'), (515, 'call / trace end'),
    (517, 'return / trace end'), (521, 'conditional jump / trace end'),
    (531, 'system call / trace end'), (533, 'return from system call / trace end'),
    (545, 'asynchronous branch / trace end'), (579, 'software interrupt / trace end'),
    (581, 'return from interrupt / trace end'),
    (611, 'hardware interrupt / trace end'), (641, 'transaction abort / trace end'),
    (2051, 'vm entry'), (2307, 'trace begin / vm entry'), (2563, 'vm entry / trace end'),
    (4099, 'vm exit'), (4355, 'trace begin / vm exit'), (4611, 'vm exit / trace end');

-- @section finish

UPDATE comms SET has_calls = 1 WHERE comms.id IN (SELECT DISTINCT comm_id FROM calls);
