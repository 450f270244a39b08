#!/usr/bin/env python3
"""Writes a tiny rocprofv3 database (the "rocpd" schema) with hand-chosen rows.

usage: make_rocpd.py OUT.db

No public rocpd sample was found, so this builds one from the schema that
ROCprofiler-SDK documents (rocpd_tables.sql, schema_version 3: table and
column names as there; only the columns perfstudy reads or that are NOT
NULL there, written out here). As rocprofv3 does, every table carries the
session's uuid as a suffix and views without it select from the tables;
perfstudy must read the tables, never the views.

The rows (times in ns; tests/e2e/t_amd.sh works out what they give):
  agents   1 CPU; 2 GPU type_index 0 and 3 GPU type_index 1, both
           "AMD Instinct MI300X"
  regions  (thread tid 4242)
    ProfilerStep#1   MARKER_CORE_RANGE_API  [1000, 20000)
    hsa_queue_create HSA_CORE_API           [500, 900)     corr 0
    hipLaunchKernel  HIP_RUNTIME_API        [1100, 1600)   corr 1
    hipLaunchKernel                         [1700, 2100)   corr 2
    hipMemcpyAsync                          [2200, 2500)   corr 3
    hipLaunchKernel                         [2600, 2800)   corr 4
    hipLaunchKernel                         [2900, 3000)   corr 5
    hipLaunchKernel                         [2300, 2400)   corr 6
    hipMemcpyPeerAsync                      [3100, 3200)   corr 7
    rcclAllReduce    RCCL_API               [3300, 3400)   not read
  kernels
    GPU 0 stream 1  Cijk_Ailk_Bljk_BBS_BH_MT128x128x64  [2000, 7000)   corr 1
    GPU 0 stream 1  attn_fwd                            [7000, 10000)  corr 2
    GPU 0 stream 1  _Z10add_kernelPfS_i (no display name: demangled to
                    add_kernel(float*, float*, int))    [10000, 10500) corr 4
    GPU 0 stream 3  ncclDevKernel_Generic_4(...)         [9000, 12000)  corr 5
    GPU 1 stream 4  Cijk_Ailk_Bljk_BBS_BH_MT128x128x64  [2500, 4500)   corr 6
  copies
    MEMORY_COPY_HOST_TO_DEVICE  CPU -> GPU 0  [12500, 13500)  1048576 B  corr 3
    MEMORY_COPY_DEVICE_TO_DEVICE GPU 0 -> GPU 1 [5000, 5800)  4096 B     corr 7
"""
import sqlite3
import sys

UUID = '_0198c1a2_7d3e_7b41_9c55_2f0e4a6b8c10'

TABLES = {
    'rocpd_metadata': 'id INTEGER PRIMARY KEY, tag TEXT NOT NULL, value TEXT NOT NULL',
    'rocpd_string': 'id INTEGER PRIMARY KEY, guid TEXT, string TEXT NOT NULL UNIQUE',
    'rocpd_info_node': 'id INTEGER PRIMARY KEY, guid TEXT, hash BIGINT, machine_id TEXT, hostname TEXT',
    'rocpd_info_process': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, ppid INTEGER,'
                          ' pid INTEGER NOT NULL, command TEXT',
    'rocpd_info_thread': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, ppid INTEGER,'
                         ' pid INTEGER NOT NULL, tid INTEGER NOT NULL, name TEXT',
    'rocpd_info_agent': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL,'
                        " type TEXT CHECK (type IN ('CPU', 'GPU')), absolute_index INTEGER,"
                        ' logical_index INTEGER, type_index INTEGER, uuid INTEGER, name TEXT, model_name TEXT,'
                        ' vendor_name TEXT, product_name TEXT, user_name TEXT, extdata JSONB',
    'rocpd_info_queue': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT',
    'rocpd_info_stream': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL, name TEXT',
    'rocpd_info_code_object': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL,'
                              ' agent_id INTEGER, uri TEXT',
    'rocpd_info_kernel_symbol': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL,'
                                ' code_object_id INTEGER NOT NULL, kernel_name TEXT, display_name TEXT',
    'rocpd_event': 'id INTEGER PRIMARY KEY, guid TEXT, category_id INTEGER, stack_id INTEGER,'
                   ' parent_stack_id INTEGER, correlation_id INTEGER',
    'rocpd_region': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL,'
                    ' tid INTEGER NOT NULL, start BIGINT NOT NULL, "end" BIGINT NOT NULL,'
                    ' name_id INTEGER NOT NULL, event_id INTEGER',
    'rocpd_kernel_dispatch': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL,'
                             ' tid INTEGER, agent_id INTEGER NOT NULL, kernel_id INTEGER NOT NULL,'
                             ' dispatch_id INTEGER NOT NULL, queue_id INTEGER NOT NULL, stream_id INTEGER NOT NULL,'
                             ' start BIGINT NOT NULL, "end" BIGINT NOT NULL, workgroup_size_x INTEGER NOT NULL,'
                             ' workgroup_size_y INTEGER NOT NULL, workgroup_size_z INTEGER NOT NULL,'
                             ' grid_size_x INTEGER NOT NULL, grid_size_y INTEGER NOT NULL,'
                             ' grid_size_z INTEGER NOT NULL, region_name_id INTEGER, event_id INTEGER',
    'rocpd_memory_copy': 'id INTEGER PRIMARY KEY, guid TEXT, nid INTEGER NOT NULL, pid INTEGER NOT NULL,'
                         ' tid INTEGER, start BIGINT NOT NULL, "end" BIGINT NOT NULL, name_id INTEGER NOT NULL,'
                         ' dst_agent_id INTEGER, dst_address INTEGER, src_agent_id INTEGER, src_address INTEGER,'
                         ' size INTEGER NOT NULL, queue_id INTEGER, stream_id INTEGER, region_name_id INTEGER,'
                         ' event_id INTEGER',
}

STRINGS = ['hipLaunchKernel', 'HIP_RUNTIME_API', 'MEMORY_COPY_HOST_TO_DEVICE', 'hipMemcpyAsync',
           'KERNEL_DISPATCH', 'MEMORY_COPY', 'MARKER_CORE_RANGE_API', 'ProfilerStep#1', 'hsa_queue_create',
           'HSA_CORE_API', 'MEMORY_COPY_DEVICE_TO_DEVICE', 'hipMemcpyPeerAsync', 'rcclAllReduce', 'RCCL_API']
S = {s: i + 1 for i, s in enumerate(STRINGS)}


def main(out):
    db = sqlite3.connect(out)
    for name, cols in TABLES.items():
        db.execute(f'CREATE TABLE "{name}{UUID}" ({cols})')
        db.execute(f'CREATE VIEW "{name}" AS SELECT * FROM "{name}{UUID}"')

    def put(table, **row):
        keys = ', '.join(f'"{k}"' for k in row)
        db.execute(f'INSERT INTO "{table}{UUID}" ({keys}) VALUES ({", ".join("?" * len(row))})', list(row.values()))

    put('rocpd_metadata', tag='schema_version', value='3')
    for s, i in S.items():
        put('rocpd_string', id=i, string=s)
    put('rocpd_info_node', id=1, hash=1, machine_id='m0', hostname='node0')
    put('rocpd_info_process', id=1, nid=1, pid=31337, command='python train.py')
    put('rocpd_info_thread', id=1, nid=1, pid=1, tid=4242, name='python')
    put('rocpd_info_agent', id=1, nid=1, pid=1, type='CPU', type_index=0, name='AMD EPYC 9654',
        product_name='AMD EPYC 9654')
    for aid, idx in ((2, 0), (3, 1)):
        put('rocpd_info_agent', id=aid, nid=1, pid=1, type='GPU', type_index=idx, absolute_index=idx + 1,
            logical_index=idx + 1, name='gfx942', product_name='AMD Instinct MI300X')
    put('rocpd_info_code_object', id=1, nid=1, pid=1, agent_id=2)
    syms = [(1, 'Cijk_Ailk_Bljk_BBS_BH_MT128x128x64_kd', 'Cijk_Ailk_Bljk_BBS_BH_MT128x128x64'),
            (2, 'attn_fwd.kd', 'attn_fwd'), (3, '_Z10add_kernelPfS_i', None),
            (4, '_Z23ncclDevKernel_Generic_4v', 'ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)')]
    for i, kn, dn in syms:
        put('rocpd_info_kernel_symbol', id=i, nid=1, pid=1, code_object_id=1, kernel_name=kn, display_name=dn)
    ev = [0]

    def event(cat, corr):
        ev[0] += 1
        put('rocpd_event', id=ev[0], category_id=S[cat], correlation_id=corr)
        return ev[0]

    regions = [('ProfilerStep#1', 'MARKER_CORE_RANGE_API', 1000, 20000, 0),
               ('hsa_queue_create', 'HSA_CORE_API', 500, 900, 0),
               ('hipLaunchKernel', 'HIP_RUNTIME_API', 1100, 1600, 1),
               ('hipLaunchKernel', 'HIP_RUNTIME_API', 1700, 2100, 2),
               ('hipMemcpyAsync', 'HIP_RUNTIME_API', 2200, 2500, 3),
               ('hipLaunchKernel', 'HIP_RUNTIME_API', 2600, 2800, 4),
               ('hipLaunchKernel', 'HIP_RUNTIME_API', 2900, 3000, 5),
               ('hipLaunchKernel', 'HIP_RUNTIME_API', 2300, 2400, 6),
               ('hipMemcpyPeerAsync', 'HIP_RUNTIME_API', 3100, 3200, 7),
               ('rcclAllReduce', 'RCCL_API', 3300, 3400, 0)]
    for i, (name, cat, a, b, corr) in enumerate(regions):
        put('rocpd_region', id=i + 1, nid=1, pid=1, tid=1, start=a, end=b, name_id=S[name], event_id=event(cat, corr))
    kernels = [(2, 1, 1, 2000, 7000, 1), (2, 2, 1, 7000, 10000, 2), (2, 3, 1, 10000, 10500, 4),
               (2, 4, 3, 9000, 12000, 5), (3, 1, 4, 2500, 4500, 6)]
    for i, (agent, sym, stream, a, b, corr) in enumerate(kernels):
        put('rocpd_kernel_dispatch', id=i + 1, nid=1, pid=1, tid=1, agent_id=agent, kernel_id=sym, dispatch_id=i + 1,
            queue_id=1, stream_id=stream, start=a, end=b, workgroup_size_x=256, workgroup_size_y=1,
            workgroup_size_z=1, grid_size_x=1024, grid_size_y=1, grid_size_z=1, region_name_id=S['hipLaunchKernel'],
            event_id=event('KERNEL_DISPATCH', corr))
    copies = [('MEMORY_COPY_HOST_TO_DEVICE', 2, 1, 12500, 13500, 1048576, 2, 3),
              ('MEMORY_COPY_DEVICE_TO_DEVICE', 3, 2, 5000, 5800, 4096, 4, 7)]
    for i, (name, dst, src, a, b, size, stream, corr) in enumerate(copies):
        put('rocpd_memory_copy', id=i + 1, nid=1, pid=1, tid=1, start=a, end=b, name_id=S[name], dst_agent_id=dst,
            src_agent_id=src, size=size, queue_id=1, stream_id=stream, event_id=event('MEMORY_COPY', corr))
    db.commit()
    db.close()


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
