-- make_nsys.sql: a small Nsight Systems SQLite export (the 2022.2 schema's
-- columns that perfstudy reads, plus some it does not), made at test time:
--   sqlite3 nsys.sqlite < make_nsys.sql
-- Expected tables in tests/e2e/expected/formats/ were worked out by hand
-- from the rows below (durations are end - start, in ns).
CREATE TABLE EXPORT_META_DATA(name TEXT NOT NULL, value TEXT);
INSERT INTO EXPORT_META_DATA VALUES('EXPORT_SCHEMA_VERSION', '2.9.1');
CREATE TABLE StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO StringIds VALUES
  (1, 'void gemm_kernel<float>(float*, int)'), (2, 'gemm_kernel'),
  (3, 'ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*)'), (4, 'ncclKernel_AllReduce_RING_LL_Sum_float'),
  (5, 'void at::native::vectorized_elementwise_kernel<4>(int)'), (6, 'vectorized_elementwise_kernel'),
  (7, 'ProfilerStep#1'), (8, 'cudaLaunchKernel_v7000'), (9, 'short_only_kernel');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, mangledName INTEGER, gridX INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES
  (1000, 4000, 0, 1, 7, 11, 100, 1, 2, NULL, 4),     -- gemm 3000
  (5000, 9000, 0, 1, 13, 12, 100, 3, 4, NULL, 1),    -- nccl 4000
  (10000, 12500, 0, 1, 7, 13, 100, 1, 2, NULL, 4),   -- gemm 2500
  (13000, 13700, 0, 1, 7, 14, 100, 5, 6, NULL, 8),   -- elementwise 700
  (30000, 29000, 0, 1, 7, 15, 100, 1, 2, NULL, 4);   -- ends before it starts: skipped with a warning
CREATE TABLE ENUM_CUDA_MEMCPY_OPER(id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (1, 'CUDA_MEMCPY_KIND_HTOD', 'Host-to-Device'),
  (11, 'CUDA_MEMCPY_KIND_UVM_HTOD', 'Unified Host-to-Device');
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES
  (100, 600, 0, 1, 7, 20, 100, 4096, 1, NULL, 1, 3),      -- Memcpy HtoD (Pageable -> Device) 500
  (20000, 20250, 0, 1, 7, 21, 100, 1024, 8, NULL, 3, 3),  -- Memcpy DtoD (Device -> Device) 250
  (21000, 21100, 0, 1, 7, 22, 100, 64, 11, NULL, NULL, NULL); -- Memcpy Unified Host-to-Device 100
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL,
  contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, globalPid INTEGER,
  value INTEGER NOT NULL, bytes INTEGER NOT NULL, memKind INTEGER);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (22000, 22040, 0, 1, 7, 23, 100, 0, 512, 3); -- Memset (Device) 40
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL,
  globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (900, 990, 1, 302119224788637, 11, 8, 0),
  (4900, 4990, 1, 302119224788637, 12, 8, 0);
CREATE TABLE NVTX_EVENTS(start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
  category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER);
INSERT INTO NVTX_EVENTS VALUES
  (0, 15000, 59, NULL, NULL, NULL, NULL, 302119224788637, NULL, 7),  -- ProfilerStep#1 through textId: 15000
  (900, 9500, 59, NULL, NULL, NULL, 'forward', 302119224788637, NULL, NULL),
  (950, NULL, 34, NULL, NULL, NULL, 'a mark', 302119224788637, NULL, NULL), -- a mark: no range
  (960, 970, 60, NULL, NULL, NULL, NULL, 302119224788637, NULL, NULL);       -- no name: left out
CREATE TABLE TARGET_INFO_GPU(vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT,
  totalMemory INTEGER, memoryBandwidth INTEGER, smCount INTEGER, computeMajor INTEGER, computeMinor INTEGER);
INSERT INTO TARGET_INFO_GPU VALUES (0, 0, 'Test GPU <&>', '0000:01:00.0', 150000000000, 4800000000000, 132, 9, 0);
CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, localTime TEXT);
INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES (1696392839587175550, '2023-10-04T04:13:59', '');
