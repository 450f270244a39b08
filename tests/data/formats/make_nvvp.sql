-- make_nvvp.sql: a small nvprof .nvvp database (the CUPTI tables and
-- columns perfstudy reads, as nvprof 8+ writes them), made at test time.
-- The kernel name is stored mangled: _Z11gemm_kernelIfEvPfi is
-- `void gemm_kernel<float>(float*, int)` (c++filt).
CREATE TABLE Version(version INTEGER);
INSERT INTO Version VALUES (8);
CREATE TABLE StringTable(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value TEXT NOT NULL UNIQUE);
INSERT INTO StringTable VALUES (0, '-- null --'), (1, 'Tesla K20c'), (2, '_Z11gemm_kernelIfEvPfi'), (3, 'scale_kernel'),
  (4, 'ProfilerStep#3');
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, start INT NOT NULL, end INT NOT NULL,
  deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL, name INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, start INT NOT NULL,
  end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL,
  name INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL(start, end, deviceId, contextId, streamId, correlationId, name) VALUES
  (1000, 3000, 0, 1, 7, 1, 2),   -- gemm 2000
  (5000, 5500, 0, 1, 7, 2, 2),   -- gemm 500
  (5600, 5900, 0, 1, 7, 3, 3);   -- scale_kernel 300 (other)
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, copyKind INT NOT NULL,
  srcKind INT NOT NULL, dstKind INT NOT NULL, flags INT NOT NULL, bytes INT NOT NULL, start INT NOT NULL,
  end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, correlationId INT NOT NULL,
  runtimeCorrelationId INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY(copyKind, srcKind, dstKind, flags, bytes, start, end, deviceId, contextId,
  streamId, correlationId, runtimeCorrelationId) VALUES (2, 3, 2, 0, 100, 6000, 6300, 0, 1, 7, 4, 4); -- DtoH 300
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY2(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, copyKind INT NOT NULL,
  srcKind INT NOT NULL, dstKind INT NOT NULL, flags INT NOT NULL, bytes INT NOT NULL, start INT NOT NULL,
  end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL, srcDeviceId INT NOT NULL,
  srcContextId INT NOT NULL, dstDeviceId INT NOT NULL, dstContextId INT NOT NULL, correlationId INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY2(copyKind, srcKind, dstKind, flags, bytes, start, end, deviceId, contextId,
  streamId, srcDeviceId, srcContextId, dstDeviceId, dstContextId, correlationId) VALUES
  (10, 3, 3, 0, 2048, 7000, 7100, 0, 1, 7, 0, 1, 1, 2, 5); -- PtoP 100
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, value INT NOT NULL, bytes INT NOT NULL,
  start INT NOT NULL, end INT NOT NULL, deviceId INT NOT NULL, contextId INT NOT NULL, streamId INT NOT NULL,
  correlationId INT NOT NULL, runtimeCorrelationId INT NOT NULL);
CREATE TABLE CUPTI_ACTIVITY_KIND_MARKER(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, flags INT NOT NULL,
  timestamp INT NOT NULL, id INT NOT NULL, objectKind INT NOT NULL, objectId BLOB NOT NULL, name INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_MARKER(flags, timestamp, id, objectKind, objectId, name) VALUES
  (2, 500, 1, 0, x'00', 4), (4, 8000, 1, 0, x'00', 0);   -- ProfilerStep#3: 7500
CREATE TABLE CUPTI_ACTIVITY_KIND_DEVICE(_id_ INTEGER PRIMARY KEY AUTOINCREMENT, globalMemoryBandwidth INT NOT NULL,
  globalMemorySize INT NOT NULL, numMultiprocessors INT NOT NULL, computeCapabilityMajor INT NOT NULL,
  computeCapabilityMinor INT NOT NULL, id INT NOT NULL, name INT NOT NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_DEVICE(globalMemoryBandwidth, globalMemorySize, numMultiprocessors,
  computeCapabilityMajor, computeCapabilityMinor, id, name) VALUES (208000000, 5032706048, 13, 3, 5, 0, 1);
