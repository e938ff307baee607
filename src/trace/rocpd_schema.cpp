// src/trace/rocpd_schema.cpp — the SQL of the rocpd 3.0.3 schema that rocpd.cpp writes.
//
// Table, column and view names, column order, declared types and the enumerated values of the
// CHECK constraints are those of AMD's rocprofiler-sdk-rocpd schema 3.0.3
// (projects/rocprofiler-sdk/source/share/rocprofiler-sdk-rocpd/versions/3.0.3/ in
// ROCm/rocm-systems): AMD's tools select columns by name and sometimes by `SELECT *`, and `rocpd
// merge` recreates the views over tables it finds by name. The statements themselves are written
// here. Every table carries the process's guid as a column default, because the views join rows
// of one process on (id, guid) so that merged databases keep processes apart.
//
// Placeholders: {{uuid}} is the table suffix ("_" + the UUIDv7 with dashes as underscores),
// {{guid}} the UUIDv7 itself.
#include "rocpd.hpp"

namespace encore::trace::rocpd::detail {
namespace {

// Foreign keys are declared (they document the joins) but not enforced while writing: rocprofv3
// does not enforce them either, and enforcing them would cost a lookup per reference.
constexpr std::string_view tables = R"sql(
CREATE TABLE "rocpd_metadata{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "tag" TEXT NOT NULL, "value" TEXT NOT NULL);

CREATE TABLE "rocpd_string{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "string" TEXT NOT NULL UNIQUE ON CONFLICT ABORT);

CREATE TABLE "rocpd_info_node{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "hash" BIGINT NOT NULL UNIQUE, "machine_id" TEXT NOT NULL UNIQUE, "system_name" TEXT,
  "hostname" TEXT, "release" TEXT, "version" TEXT, "hardware_name" TEXT, "domain_name" TEXT);

CREATE TABLE "rocpd_info_process{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "ppid" INTEGER, "pid" INTEGER NOT NULL, "init" BIGINT, "fini" BIGINT, "start" BIGINT,
  "end" BIGINT, "command" TEXT, "environment" JSONB DEFAULT '{}' NOT NULL,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_thread{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "ppid" INTEGER,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER NOT NULL, "name" TEXT, "start" BIGINT, "end" BIGINT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_agent{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "type" TEXT CHECK ("type" IN ('CPU', 'GPU', 'NIC')), "absolute_index" INTEGER,
  "logical_index" INTEGER, "type_index" INTEGER, "uuid" INTEGER, "name" TEXT, "model_name" TEXT,
  "vendor_name" TEXT, "product_name" TEXT, "user_name" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_queue{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "name" TEXT, "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_stream{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "name" TEXT, "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_pmc{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "agent_id" INTEGER REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "target_arch" TEXT CHECK ("target_arch" IN ('CPU', 'GPU', 'NIC')), "event_code" INT,
  "instance_id" INTEGER, "name" TEXT NOT NULL, "symbol" TEXT NOT NULL, "description" TEXT,
  "long_description" TEXT DEFAULT '', "component" TEXT, "units" TEXT DEFAULT '',
  "value_type" TEXT CHECK ("value_type" IN ('ABS', 'ACCUM', 'RELATIVE')), "block" TEXT,
  "expression" TEXT, "is_constant" INTEGER, "is_derived" INTEGER, "spm_support" INTEGER,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_code_object{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "agent_id" INTEGER REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "uri" TEXT, "load_base" BIGINT, "load_size" BIGINT, "load_delta" BIGINT,
  "storage_type" TEXT CHECK ("storage_type" IN ('FILE', 'MEMORY')),
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_info_kernel_symbol{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "code_object_id" INTEGER NOT NULL
    REFERENCES "rocpd_info_code_object{{uuid}}" ("id") ON UPDATE CASCADE,
  "kernel_name" TEXT, "display_name" TEXT, "kernel_object" INTEGER,
  "kernarg_segment_size" INTEGER, "kernarg_segment_alignment" INTEGER,
  "group_segment_size" INTEGER, "private_segment_size" INTEGER, "sgpr_count" INTEGER,
  "arch_vgpr_count" INTEGER, "accum_vgpr_count" INTEGER, "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_track{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "name_id" INTEGER REFERENCES "rocpd_string{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_event{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "category_id" INTEGER REFERENCES "rocpd_string{{uuid}}" ("id") ON UPDATE CASCADE,
  "stack_id" INTEGER, "parent_stack_id" INTEGER, "correlation_id" INTEGER,
  "call_stack" JSONB DEFAULT '{}' NOT NULL, "line_info" JSONB DEFAULT '{}' NOT NULL,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_arg{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "event_id" INTEGER NOT NULL REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "position" INTEGER NOT NULL, "type" TEXT NOT NULL, "name" TEXT NOT NULL, "value" TEXT,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_pmc_event{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "sample_id" INTEGER REFERENCES "rocpd_sample{{uuid}}" ("id") ON UPDATE CASCADE,
  "pmc_id" INTEGER NOT NULL REFERENCES "rocpd_info_pmc{{uuid}}" ("id") ON UPDATE CASCADE,
  "value" REAL DEFAULT 0.0, "xcc" INTEGER, "shader_engine" INTEGER, "instance" INTEGER,
  "extdata" JSONB DEFAULT '{}');

CREATE TABLE "rocpd_region{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER NOT NULL REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL,
  "name_id" INTEGER NOT NULL REFERENCES "rocpd_string{{uuid}}" ("id") ON UPDATE CASCADE,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_sample{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "track_id" INTEGER NOT NULL REFERENCES "rocpd_track{{uuid}}" ("id") ON UPDATE CASCADE,
  "timestamp" BIGINT NOT NULL,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_kernel_dispatch{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "agent_id" INTEGER NOT NULL REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "kernel_id" INTEGER NOT NULL
    REFERENCES "rocpd_info_kernel_symbol{{uuid}}" ("id") ON UPDATE CASCADE,
  "dispatch_id" INTEGER NOT NULL,
  "queue_id" INTEGER NOT NULL REFERENCES "rocpd_info_queue{{uuid}}" ("id") ON UPDATE CASCADE,
  "stream_id" INTEGER NOT NULL REFERENCES "rocpd_info_stream{{uuid}}" ("id") ON UPDATE CASCADE,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "private_segment_size" INTEGER,
  "group_segment_size" INTEGER, "workgroup_size_x" INTEGER NOT NULL,
  "workgroup_size_y" INTEGER NOT NULL, "workgroup_size_z" INTEGER NOT NULL,
  "grid_size_x" INTEGER NOT NULL, "grid_size_y" INTEGER NOT NULL, "grid_size_z" INTEGER NOT NULL,
  "graph_exec_id" INTEGER NOT NULL DEFAULT 0, "graph_node_id" INTEGER NOT NULL DEFAULT 0,
  "region_name_id" INTEGER REFERENCES "rocpd_string{{uuid}}" ("id") ON UPDATE CASCADE,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_memory_copy{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL,
  "name_id" INTEGER NOT NULL REFERENCES "rocpd_string{{uuid}}" ("id") ON UPDATE CASCADE,
  "dst_agent_id" INTEGER REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "dst_address" INTEGER,
  "src_agent_id" INTEGER REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "src_address" INTEGER, "size" INTEGER NOT NULL,
  "queue_id" INTEGER REFERENCES "rocpd_info_queue{{uuid}}" ("id") ON UPDATE CASCADE,
  "stream_id" INTEGER REFERENCES "rocpd_info_stream{{uuid}}" ("id") ON UPDATE CASCADE,
  "graph_exec_id" INTEGER NOT NULL DEFAULT 0, "graph_node_id" INTEGER NOT NULL DEFAULT 0,
  "region_name_id" INTEGER REFERENCES "rocpd_string{{uuid}}" ("id") ON UPDATE CASCADE,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_memory_allocate{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "agent_id" INTEGER REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "type" TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM')),
  "level" TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH')),
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "address" INTEGER, "size" INTEGER NOT NULL,
  "queue_id" INTEGER REFERENCES "rocpd_info_queue{{uuid}}" ("id") ON UPDATE CASCADE,
  "stream_id" INTEGER REFERENCES "rocpd_info_stream{{uuid}}" ("id") ON UPDATE CASCADE,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_graph_launch{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "agent_id" INTEGER REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "queue_id" INTEGER REFERENCES "rocpd_info_queue{{uuid}}" ("id") ON UPDATE CASCADE,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL, "graph_exec_id" INTEGER NOT NULL,
  "kernel_dispatch_count" INTEGER NOT NULL DEFAULT 0,
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE,
  "extdata" JSONB DEFAULT '{}' NOT NULL);

CREATE TABLE "rocpd_event_operation{{uuid}}" (
  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "guid" TEXT DEFAULT '{{guid}}' NOT NULL,
  "nid" INTEGER NOT NULL REFERENCES "rocpd_info_node{{uuid}}" ("id") ON UPDATE CASCADE,
  "pid" INTEGER NOT NULL REFERENCES "rocpd_info_process{{uuid}}" ("id") ON UPDATE CASCADE,
  "tid" INTEGER REFERENCES "rocpd_info_thread{{uuid}}" ("id") ON UPDATE CASCADE,
  "agent_id" INTEGER NOT NULL REFERENCES "rocpd_info_agent{{uuid}}" ("id") ON UPDATE CASCADE,
  "event_obj" INTEGER NOT NULL, "type_id" INTEGER NOT NULL, "issue_id" INTEGER NOT NULL,
  "queue_id" INTEGER NOT NULL REFERENCES "rocpd_info_queue{{uuid}}" ("id") ON UPDATE CASCADE,
  "stream_id" INTEGER NOT NULL REFERENCES "rocpd_info_stream{{uuid}}" ("id") ON UPDATE CASCADE,
  "start" BIGINT NOT NULL, "end" BIGINT NOT NULL,
  "type" TEXT CHECK ("type" IN ('WAIT', 'SIGNAL')),
  "event_id" INTEGER REFERENCES "rocpd_event{{uuid}}" ("id") ON UPDATE CASCADE);
)sql";

// One pass-through view per table, under the table's name without the suffix: AMD's views and
// tools query these names, and `rocpd merge` turns each into a UNION ALL over several processes.
constexpr std::string_view views = R"sql(
CREATE VIEW "rocpd_metadata" AS SELECT * FROM "rocpd_metadata{{uuid}}";
CREATE VIEW "rocpd_string" AS SELECT * FROM "rocpd_string{{uuid}}";
CREATE VIEW "rocpd_info_node" AS SELECT * FROM "rocpd_info_node{{uuid}}";
CREATE VIEW "rocpd_info_process" AS SELECT * FROM "rocpd_info_process{{uuid}}";
CREATE VIEW "rocpd_info_thread" AS SELECT * FROM "rocpd_info_thread{{uuid}}";
CREATE VIEW "rocpd_info_agent" AS SELECT * FROM "rocpd_info_agent{{uuid}}";
CREATE VIEW "rocpd_info_queue" AS SELECT * FROM "rocpd_info_queue{{uuid}}";
CREATE VIEW "rocpd_info_stream" AS SELECT * FROM "rocpd_info_stream{{uuid}}";
CREATE VIEW "rocpd_info_pmc" AS SELECT * FROM "rocpd_info_pmc{{uuid}}";
CREATE VIEW "rocpd_info_code_object" AS SELECT * FROM "rocpd_info_code_object{{uuid}}";
CREATE VIEW "rocpd_info_kernel_symbol" AS SELECT * FROM "rocpd_info_kernel_symbol{{uuid}}";
CREATE VIEW "rocpd_track" AS SELECT * FROM "rocpd_track{{uuid}}";
CREATE VIEW "rocpd_event" AS SELECT * FROM "rocpd_event{{uuid}}";
CREATE VIEW "rocpd_arg" AS SELECT * FROM "rocpd_arg{{uuid}}";
CREATE VIEW "rocpd_pmc_event" AS SELECT * FROM "rocpd_pmc_event{{uuid}}";
CREATE VIEW "rocpd_region" AS SELECT * FROM "rocpd_region{{uuid}}";
CREATE VIEW "rocpd_sample" AS SELECT * FROM "rocpd_sample{{uuid}}";
CREATE VIEW "rocpd_kernel_dispatch" AS SELECT * FROM "rocpd_kernel_dispatch{{uuid}}";
CREATE VIEW "rocpd_memory_copy" AS SELECT * FROM "rocpd_memory_copy{{uuid}}";
CREATE VIEW "rocpd_memory_allocate" AS SELECT * FROM "rocpd_memory_allocate{{uuid}}";
CREATE VIEW "rocpd_graph_launch" AS SELECT * FROM "rocpd_graph_launch{{uuid}}";
CREATE VIEW "rocpd_event_operation" AS SELECT * FROM "rocpd_event_operation{{uuid}}";
)sql";

// The data views, column for column those of schema 3.0.3 (names, order), so that `SELECT *`
// and AMD's converters see the same shape. Joins are on (id, guid) throughout; where AMD's text
// joins a table through an unrelated one (kernels reach the process through the queue, threads
// and memory_allocations compare an unrelated guid), these join it directly: same rows for one
// process's database, where every row carries the same guid and every dispatch a queue.
constexpr std::string_view data_views = R"sql(
CREATE VIEW "code_objects" AS
SELECT co.id, co.guid, co.nid, p.pid, ag.absolute_index AS agent_abs_index, co.uri, co.load_base,
       co.load_size, co.load_delta, co.storage_type AS storage_type_str,
       json_extract(co.extdata, '$.size') AS code_object_size,
       json_extract(co.extdata, '$.storage_type') AS storage_type,
       json_extract(co.extdata, '$.memory_base') AS memory_base,
       json_extract(co.extdata, '$.memory_size') AS memory_size
FROM "rocpd_info_code_object" co
JOIN "rocpd_info_agent" ag ON ag.id = co.agent_id AND ag.guid = co.guid
JOIN "rocpd_info_process" p ON p.id = co.pid AND p.guid = co.guid;

CREATE VIEW "kernel_symbols" AS
SELECT ks.id, ks.guid, ks.nid, p.pid, ks.code_object_id, ks.kernel_name, ks.display_name,
       ks.kernel_object, ks.kernarg_segment_size, ks.kernarg_segment_alignment,
       ks.group_segment_size, ks.private_segment_size, ks.sgpr_count, ks.arch_vgpr_count,
       ks.accum_vgpr_count,
       json_extract(ks.extdata, '$.size') AS kernel_symbol_size,
       json_extract(ks.extdata, '$.kernel_id') AS kernel_id,
       json_extract(ks.extdata, '$.kernel_code_entry_byte_offset') AS kernel_code_entry_byte_offset,
       json_extract(ks.extdata, '$.formatted_kernel_name') AS formatted_kernel_name,
       json_extract(ks.extdata, '$.demangled_kernel_name') AS demangled_kernel_name,
       json_extract(ks.extdata, '$.truncated_kernel_name') AS truncated_kernel_name,
       json_extract(ks.extdata, '$.kernel_address.handle') AS kernel_address
FROM "rocpd_info_kernel_symbol" ks
JOIN "rocpd_info_process" p ON p.id = ks.pid AND p.guid = ks.guid;

CREATE VIEW "processes" AS
SELECT n.id AS nid, n.machine_id, n.system_name, n.hostname, n.release AS system_release,
       n.version AS system_version, p.guid, p.ppid, p.pid, p.init, p.start, p.end, p.fini,
       p.command
FROM "rocpd_info_process" p
JOIN "rocpd_info_node" n ON n.id = p.nid AND n.guid = p.guid;

CREATE VIEW "threads" AS
SELECT n.id AS nid, n.machine_id, n.system_name, n.hostname, n.release AS system_release,
       n.version AS system_version, p.guid, p.ppid, p.pid, t.tid, t.start, t.end, t.name
FROM "rocpd_info_thread" t
JOIN "rocpd_info_process" p ON p.id = t.pid AND p.guid = t.guid
JOIN "rocpd_info_node" n ON n.id = t.nid AND n.guid = t.guid;

CREATE VIEW "regions" AS
SELECT r.id, r.guid,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       s.string AS name, r.nid, p.pid, t.tid, r.start, r.end, (r.end - r.start) AS duration,
       r.event_id, e.stack_id, e.parent_stack_id, e.correlation_id AS corr_id, e.extdata,
       e.call_stack, e.line_info
FROM "rocpd_region" r
JOIN "rocpd_event" e ON e.id = r.event_id AND e.guid = r.guid
JOIN "rocpd_string" s ON s.id = r.name_id AND s.guid = r.guid
JOIN "rocpd_info_process" p ON p.id = r.pid AND p.guid = r.guid
JOIN "rocpd_info_thread" t ON t.id = r.tid AND t.guid = r.guid;

CREATE VIEW "region_args" AS
SELECT r.id, r.guid, r.nid, p.pid, a.type, a.name, a.value
FROM "rocpd_region" r
JOIN "rocpd_event" e ON e.id = r.event_id AND e.guid = r.guid
JOIN "rocpd_arg" a ON a.event_id = e.id AND a.guid = r.guid
JOIN "rocpd_info_process" p ON p.id = r.pid AND p.guid = r.guid;

CREATE VIEW "samples" AS
SELECT sm.id, sm.guid,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = tr.name_id AND c.guid = tr.guid)
         AS name,
       tr.nid, p.pid, th.tid, sm.timestamp, sm.event_id, e.stack_id AS stack_id,
       e.parent_stack_id AS parent_stack_id, e.correlation_id AS corr_id, e.extdata AS extdata,
       e.call_stack AS call_stack, e.line_info AS line_info
FROM "rocpd_sample" sm
JOIN "rocpd_track" tr ON tr.id = sm.track_id AND tr.guid = sm.guid
JOIN "rocpd_event" e ON e.id = sm.event_id AND e.guid = sm.guid
JOIN "rocpd_info_process" p ON p.id = tr.pid AND p.guid = tr.guid
JOIN "rocpd_info_thread" th ON th.id = tr.tid AND th.guid = tr.guid;

CREATE VIEW "sample_regions" AS
SELECT sm.id, sm.guid,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = tr.name_id AND c.guid = tr.guid)
         AS name,
       tr.nid, p.pid, th.tid, sm.timestamp AS start, sm.timestamp AS "END",
       (sm.timestamp - sm.timestamp) AS duration, sm.event_id, e.stack_id AS stack_id,
       e.parent_stack_id AS parent_stack_id, e.correlation_id AS corr_id, e.extdata AS extdata,
       e.call_stack AS call_stack, e.line_info AS line_info
FROM "rocpd_sample" sm
JOIN "rocpd_track" tr ON tr.id = sm.track_id AND tr.guid = sm.guid
JOIN "rocpd_event" e ON e.id = sm.event_id AND e.guid = sm.guid
JOIN "rocpd_info_process" p ON p.id = tr.pid AND p.guid = tr.guid
JOIN "rocpd_info_thread" th ON th.id = tr.tid AND th.guid = tr.guid;

CREATE VIEW "regions_and_samples" AS
SELECT * FROM "regions" UNION ALL SELECT * FROM "sample_regions";

CREATE VIEW "kernels" AS
SELECT k.id, k.guid, t.tid,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       rn.string AS region, ks.display_name AS name, k.nid, p.pid,
       ag.absolute_index AS agent_abs_index, ag.logical_index AS agent_log_index,
       ag.type_index AS agent_type_index, ag.type AS agent_type,
       ks.code_object_id AS code_object_id, k.kernel_id, k.dispatch_id, k.stream_id, k.queue_id,
       k.graph_exec_id, k.graph_node_id, q.name AS queue, st.name AS stream, k.start, k.end,
       (k.end - k.start) AS duration, k.grid_size_x AS grid_x, k.grid_size_y AS grid_y,
       k.grid_size_z AS grid_z, k.workgroup_size_x AS workgroup_x,
       k.workgroup_size_y AS workgroup_y, k.workgroup_size_z AS workgroup_z,
       k.group_segment_size AS lds_size, k.private_segment_size AS scratch_size,
       ks.arch_vgpr_count AS vgpr_count, ks.accum_vgpr_count, ks.sgpr_count,
       ks.group_segment_size AS static_lds_size, ks.private_segment_size AS static_scratch_size,
       k.event_id, e.stack_id, e.parent_stack_id, e.correlation_id AS corr_id
FROM "rocpd_kernel_dispatch" k
JOIN "rocpd_info_agent" ag ON ag.id = k.agent_id AND ag.guid = k.guid
JOIN "rocpd_event" e ON e.id = k.event_id AND e.guid = k.guid
JOIN "rocpd_string" rn ON rn.id = k.region_name_id AND rn.guid = k.guid
JOIN "rocpd_info_kernel_symbol" ks ON ks.id = k.kernel_id AND ks.guid = k.guid
LEFT JOIN "rocpd_info_stream" st ON st.id = k.stream_id AND st.guid = k.guid
LEFT JOIN "rocpd_info_queue" q ON q.id = k.queue_id AND q.guid = k.guid
JOIN "rocpd_info_process" p ON p.id = k.pid AND p.guid = k.guid
JOIN "rocpd_info_thread" t ON t.id = k.tid AND t.guid = k.guid;

CREATE VIEW "pmc_info" AS
SELECT pi.id, pi.guid, pi.nid, p.pid, ag.absolute_index AS agent_abs_index, pi.is_constant,
       pi.is_derived, pi.name, pi.description, pi.block, pi.expression
FROM "rocpd_info_pmc" pi
JOIN "rocpd_info_agent" ag ON ag.id = pi.agent_id AND ag.guid = pi.guid
JOIN "rocpd_info_process" p ON p.id = pi.pid AND p.guid = pi.guid;

CREATE VIEW "pmc_events" AS
SELECT pe.id, pe.guid, pe.pmc_id, e.id AS event_id,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       (SELECT s.display_name FROM "rocpd_info_kernel_symbol" s
        WHERE s.id = k.kernel_id AND s.guid = k.guid) AS name,
       k.nid, p.pid, k.dispatch_id, k.start, k.end, (k.end - k.start) AS duration,
       pi.name AS counter_name, pe.value AS counter_value
FROM "rocpd_pmc_event" pe
JOIN "rocpd_info_pmc" pi ON pi.id = pe.pmc_id AND pi.guid = pe.guid
JOIN "rocpd_event" e ON e.id = pe.event_id AND e.guid = pe.guid
JOIN "rocpd_kernel_dispatch" k ON k.event_id = pe.event_id AND k.guid = pe.guid
JOIN "rocpd_info_process" p ON p.id = k.pid AND p.guid = k.guid;

CREATE VIEW "events_args" AS
SELECT e.id AS event_id,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       e.stack_id, e.parent_stack_id, e.correlation_id, a.position AS arg_position,
       a.type AS arg_type, a.name AS arg_name, a.value AS arg_value, e.call_stack, e.line_info,
       a.extdata
FROM "rocpd_event" e
JOIN "rocpd_arg" a ON a.event_id = e.id AND a.guid = e.guid;

CREATE VIEW "stream_args" AS
SELECT a.id AS argument_id, a.event_id AS event_id, a.position AS arg_position,
       a.type AS arg_type, a.value AS arg_value,
       json_extract(a.extdata, '$.stream_id') AS stream_id, st.nid, p.pid,
       st.name AS stream_name, st.extdata AS extdata
FROM "rocpd_arg" a
JOIN "rocpd_info_stream" st ON st.id = json_extract(a.extdata, '$.stream_id') AND st.guid = a.guid
JOIN "rocpd_info_process" p ON p.id = st.pid AND p.guid = st.guid
WHERE a.name = 'stream';

CREATE VIEW "memory_copies" AS
SELECT m.id, m.guid,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       m.nid, p.pid, t.tid, m.start, m.end, (m.end - m.start) AS duration, s.string AS name,
       rn.string AS region_name, m.stream_id, m.queue_id, m.graph_exec_id, m.graph_node_id,
       st.name AS stream_name, q.name AS queue_name, m.size,
       dst.name AS dst_device, dst.absolute_index AS dst_agent_abs_index,
       dst.logical_index AS dst_agent_log_index, dst.type_index AS dst_agent_type_index,
       dst.type AS dst_agent_type, m.dst_address,
       src.name AS src_device, src.absolute_index AS src_agent_abs_index,
       src.logical_index AS src_agent_log_index, src.type_index AS src_agent_type_index,
       src.type AS src_agent_type, m.src_address,
       e.stack_id, e.parent_stack_id, e.correlation_id AS corr_id
FROM "rocpd_memory_copy" m
JOIN "rocpd_string" s ON s.id = m.name_id AND s.guid = m.guid
LEFT JOIN "rocpd_string" rn ON rn.id = m.region_name_id AND rn.guid = m.guid
JOIN "rocpd_info_agent" dst ON dst.id = m.dst_agent_id AND dst.guid = m.guid
JOIN "rocpd_info_agent" src ON src.id = m.src_agent_id AND src.guid = m.guid
LEFT JOIN "rocpd_info_queue" q ON q.id = m.queue_id AND q.guid = m.guid
LEFT JOIN "rocpd_info_stream" st ON st.id = m.stream_id AND st.guid = m.guid
JOIN "rocpd_event" e ON e.id = m.event_id AND e.guid = m.guid
JOIN "rocpd_info_process" p ON p.id = m.pid AND p.guid = m.guid
JOIN "rocpd_info_thread" t ON t.id = m.tid AND t.guid = m.guid;

CREATE VIEW "graph_launches" AS
SELECT g.id, g.guid, g.nid, p.pid, t.tid, g.agent_id, ag.absolute_index AS agent_abs_index,
       ag.logical_index AS agent_log_index, ag.type_index AS agent_type_index,
       ag.type AS agent_type, g.queue_id, q.name AS queue, 'Graph Execution' AS name, g.start,
       g.end, (g.end - g.start) AS duration, g.graph_exec_id, g.kernel_dispatch_count,
       g.event_id, e.stack_id, e.parent_stack_id, e.correlation_id AS corr_id
FROM "rocpd_graph_launch" g
LEFT JOIN "rocpd_info_agent" ag ON ag.id = g.agent_id AND ag.guid = g.guid
LEFT JOIN "rocpd_info_queue" q ON q.id = g.queue_id AND q.guid = g.guid
JOIN "rocpd_event" e ON e.id = g.event_id AND e.guid = g.guid
JOIN "rocpd_info_process" p ON p.id = g.pid AND p.guid = g.guid
JOIN "rocpd_info_thread" t ON t.id = g.tid AND t.guid = g.guid;

CREATE VIEW "memory_allocations" AS
SELECT m.id, m.guid,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       m.nid, p.pid, t.tid, m.start, m.end, (m.end - m.start) AS duration, m.type, m.level,
       ag.name AS agent_name, ag.absolute_index AS agent_abs_index,
       ag.logical_index AS agent_log_index, ag.type_index AS agent_type_index,
       ag.type AS agent_type, m.address, m.size, m.queue_id, q.name AS queue_name, m.stream_id,
       st.name AS stream_name, e.stack_id, e.parent_stack_id, e.correlation_id AS corr_id
FROM "rocpd_memory_allocate" m
LEFT JOIN "rocpd_info_agent" ag ON ag.id = m.agent_id AND ag.guid = m.guid
LEFT JOIN "rocpd_info_queue" q ON q.id = m.queue_id AND q.guid = m.guid
LEFT JOIN "rocpd_info_stream" st ON st.id = m.stream_id AND st.guid = m.guid
JOIN "rocpd_event" e ON e.id = m.event_id AND e.guid = m.guid
JOIN "rocpd_info_process" p ON p.id = m.pid AND p.guid = m.guid
JOIN "rocpd_info_thread" t ON t.id = m.tid AND t.guid = m.guid;

CREATE VIEW "scratch_memory" AS
SELECT m.id, m.guid, m.nid, p.pid, m.type AS operation, ag.name AS agent_name,
       ag.absolute_index AS agent_abs_index, ag.logical_index AS agent_log_index,
       ag.type_index AS agent_type_index, ag.type AS agent_type, m.queue_id, t.tid,
       json_extract(m.extdata, '$.flags') AS alloc_flags, m.start, m.end,
       (m.end - m.start) AS duration, m.size, m.address, e.correlation_id, e.stack_id,
       e.parent_stack_id, e.correlation_id AS corr_id,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       e.extdata AS event_extdata
FROM "rocpd_memory_allocate" m
LEFT JOIN "rocpd_info_agent" ag ON ag.id = m.agent_id AND ag.guid = m.guid
LEFT JOIN "rocpd_info_queue" q ON q.id = m.queue_id AND q.guid = m.guid
JOIN "rocpd_event" e ON e.id = m.event_id AND e.guid = m.guid
JOIN "rocpd_info_process" p ON p.id = m.pid AND p.guid = m.guid
JOIN "rocpd_info_thread" t ON t.id = m.tid AND t.guid = m.guid
WHERE m.level = 'SCRATCH'
ORDER BY m.start ASC;

CREATE VIEW "counters_collection" AS
SELECT min(pe.id) AS id, pe.guid, k.dispatch_id, k.kernel_id, e.id AS event_id,
       e.correlation_id, e.stack_id, e.parent_stack_id, p.pid, t.tid, k.agent_id,
       ag.absolute_index AS agent_abs_index, ag.logical_index AS agent_log_index,
       ag.type_index AS agent_type_index, ag.type AS agent_type, k.queue_id,
       k.grid_size_x AS grid_size_x, k.grid_size_y AS grid_size_y, k.grid_size_z AS grid_size_z,
       (k.grid_size_x * k.grid_size_y * k.grid_size_z) AS grid_size,
       ks.display_name AS kernel_name,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = k.region_name_id AND c.guid = k.guid)
         AS kernel_region,
       k.workgroup_size_x AS workgroup_size_x, k.workgroup_size_y AS workgroup_size_y,
       k.workgroup_size_z AS workgroup_size_z,
       (k.workgroup_size_x * k.workgroup_size_y * k.workgroup_size_z) AS workgroup_size,
       k.group_segment_size AS lds_block_size, k.private_segment_size AS scratch_size,
       ks.arch_vgpr_count AS vgpr_count, ks.accum_vgpr_count, ks.sgpr_count,
       pi.name AS counter_name, pi.symbol AS counter_symbol, pi.component, pi.description,
       pi.block, pi.expression, pi.value_type, pi.id AS counter_id, sum(pe.value) AS value,
       k.start, k.end, pi.is_constant, pi.is_derived, (k.end - k.start) AS duration,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       k.nid, e.extdata, ks.code_object_id
FROM "rocpd_pmc_event" pe
JOIN "rocpd_info_pmc" pi ON pi.id = pe.pmc_id AND pi.guid = pe.guid
JOIN "rocpd_event" e ON e.id = pe.event_id AND e.guid = pe.guid
JOIN "rocpd_kernel_dispatch" k ON k.event_id = pe.event_id AND k.guid = pe.guid
JOIN "rocpd_info_agent" ag ON ag.id = k.agent_id AND ag.guid = k.guid
JOIN "rocpd_info_kernel_symbol" ks ON ks.id = k.kernel_id AND ks.guid = k.guid
JOIN "rocpd_info_process" p ON p.id = k.pid AND p.guid = k.guid
JOIN "rocpd_info_thread" t ON t.id = k.tid AND t.guid = k.guid
WHERE pe.sample_id IS NULL
GROUP BY pe.guid, k.dispatch_id, pi.name, k.agent_id;

CREATE VIEW "spm_counters" AS
SELECT pe.id, pe.guid, k.dispatch_id, k.kernel_id, e.id AS event_id, e.correlation_id,
       e.stack_id, e.parent_stack_id, p.pid, t.tid, k.agent_id,
       ag.absolute_index AS agent_abs_index, ag.logical_index AS agent_log_index,
       ag.type_index AS agent_type_index, ag.type AS agent_type, k.queue_id,
       k.grid_size_x AS grid_size_x, k.grid_size_y AS grid_size_y, k.grid_size_z AS grid_size_z,
       (k.grid_size_x * k.grid_size_y * k.grid_size_z) AS grid_size,
       ks.display_name AS kernel_name,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = k.region_name_id AND c.guid = k.guid)
         AS kernel_region,
       k.workgroup_size_x AS workgroup_size_x, k.workgroup_size_y AS workgroup_size_y,
       k.workgroup_size_z AS workgroup_size_z,
       (k.workgroup_size_x * k.workgroup_size_y * k.workgroup_size_z) AS workgroup_size,
       k.group_segment_size AS lds_block_size, k.private_segment_size AS scratch_size,
       ks.arch_vgpr_count AS vgpr_count, ks.accum_vgpr_count, ks.sgpr_count,
       pi.name AS counter_name, pi.symbol AS counter_symbol, pi.component, pi.description,
       pi.block, pi.expression, pi.value_type, pi.id AS counter_id, pe.xcc, pe.shader_engine,
       pe.instance, pe.value, sm.timestamp, pi.is_constant, pi.is_derived,
       (SELECT c.string FROM "rocpd_string" c WHERE c.id = e.category_id AND c.guid = e.guid)
         AS category,
       k.nid, e.extdata, ks.code_object_id
FROM "rocpd_pmc_event" pe
JOIN "rocpd_sample" sm ON sm.id = pe.sample_id AND sm.guid = pe.guid
JOIN "rocpd_info_pmc" pi ON pi.id = pe.pmc_id AND pi.guid = pe.guid
JOIN "rocpd_event" e ON e.id = pe.event_id AND e.guid = pe.guid
JOIN "rocpd_kernel_dispatch" k ON k.event_id = pe.event_id AND k.guid = pe.guid
JOIN "rocpd_info_agent" ag ON ag.id = k.agent_id AND ag.guid = k.guid
JOIN "rocpd_info_kernel_symbol" ks ON ks.id = k.kernel_id AND ks.guid = k.guid
JOIN "rocpd_info_process" p ON p.id = k.pid AND p.guid = k.guid
JOIN "rocpd_info_thread" t ON t.id = k.tid AND t.guid = k.guid;
)sql";

// Summary views: times in microseconds (ns / 1000.0) and percentages of the total, as
// `rocpd summary` prints them.
constexpr std::string_view summary_views = R"sql(
CREATE VIEW "top_kernels" AS
SELECT ks.display_name AS name, count(k.kernel_id) AS total_calls,
       sum(k.end - k.start) / 1000.0 AS total_duration,
       (sum(k.end - k.start) / count(k.kernel_id)) / 1000.0 AS average,
       sum(k.end - k.start) * 100.0 / (SELECT sum(a.end - a.start) FROM "rocpd_kernel_dispatch" a)
         AS percentage
FROM "rocpd_kernel_dispatch" k
JOIN "rocpd_info_kernel_symbol" ks ON ks.id = k.kernel_id AND ks.guid = k.guid
GROUP BY name
ORDER BY total_duration DESC;

CREATE VIEW "busy" AS
SELECT per_agent.agent_id, ag.type, GpuTime, WallTime, GpuTime * 1.0 / WallTime AS Busy
FROM (SELECT agent_id, guid, sum("end" - start) AS GpuTime
      FROM (SELECT agent_id, guid, "end", start FROM "rocpd_kernel_dispatch"
            UNION ALL
            SELECT dst_agent_id AS agent_id, guid, "end", start FROM "rocpd_memory_copy")
      GROUP BY agent_id, guid) per_agent
JOIN (SELECT max("end") - min(start) AS WallTime
      FROM (SELECT "end", start FROM "rocpd_kernel_dispatch"
            UNION ALL
            SELECT "end", start FROM "rocpd_memory_copy")) wall ON 1 = 1
JOIN "rocpd_info_agent" ag ON ag.id = per_agent.agent_id AND ag.guid = per_agent.guid;

CREATE VIEW "top" AS
SELECT name, count(*) AS total_calls, sum(duration) / 1000.0 AS total_duration,
       (sum(duration) / count(*)) / 1000.0 AS average,
       sum(duration) * 100.0 / total_time AS percentage
FROM (SELECT ks.display_name AS name, (k.end - k.start) AS duration
      FROM "rocpd_kernel_dispatch" k
      JOIN "rocpd_info_kernel_symbol" ks ON ks.id = k.kernel_id AND ks.guid = k.guid
      UNION ALL
      SELECT s.string AS name, (m."end" - m.start) AS duration
      FROM "rocpd_memory_copy" m
      JOIN "rocpd_string" s ON s.id = m.name_id AND s.guid = m.guid
      UNION ALL
      SELECT s.string AS name, (r."end" - r.start) AS duration
      FROM "rocpd_region" r
      JOIN "rocpd_string" s ON s.id = r.name_id AND s.guid = r.guid) operations
CROSS JOIN (SELECT sum("end" - start) AS total_time
            FROM (SELECT "end", start FROM "rocpd_kernel_dispatch"
                  UNION ALL
                  SELECT "end", start FROM "rocpd_memory_copy"
                  UNION ALL
                  SELECT "end", start FROM "rocpd_region")) total
GROUP BY name
ORDER BY total_duration DESC;
)sql";

// AMD's index file for 3.0.x declares none; these serve the views' joins that are not on a
// primary key (arguments and counter values by event, dispatches by event).
constexpr std::string_view indexes = R"sql(
CREATE INDEX "rocpd_arg{{uuid}}_event_idx" ON "rocpd_arg{{uuid}}" ("event_id");
CREATE INDEX "rocpd_kernel_dispatch{{uuid}}_event_idx" ON "rocpd_kernel_dispatch{{uuid}}" ("event_id");
CREATE INDEX "rocpd_pmc_event{{uuid}}_event_idx" ON "rocpd_pmc_event{{uuid}}" ("event_id");
)sql";

}  // namespace

std::string_view tables_sql() { return tables; }
std::string_view views_sql() { return views; }
std::string_view data_views_sql() { return data_views; }
std::string_view summary_views_sql() { return summary_views; }
std::string_view indexes_sql() { return indexes; }

}  // namespace encore::trace::rocpd::detail
