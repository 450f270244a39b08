/*
 * test_kineto_text.c: the Kineto reader's two ways of reading an event,
 * against each other. kineto_args.h reads most events straight from the
 * JSON text and leaves the rest to simdjson's walk in kineto_json.cpp; the
 * two must give the same events, the same fields and the same errors
 * (message, detail and byte offset). Windows of events (some copied from
 * experiments/h200x4/traces, some written to be odd) and deterministic
 * mutations of them (a fixed-seed PRNG flips, deletes, inserts and copies
 * bytes, swaps values and keys, cuts windows short) are parsed with the
 * text path on and off (kj_text_read), as kineto_stream.c parses a window
 * (kj_parse_events) and as a whole document (kj_parse), and what on_event
 * was handed compared byte for byte.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "ingest/kineto/kineto_json.h"
#include "ingest/kineto/kineto_stream.h"

/* An event's text; n counts bytes, so that a NUL may stand in it. */
struct piece {
	const char *s;
	size_t n;
};
#define P(s) {s, sizeof(s) - 1}

/* Events as Kineto writes them (experiments/h200x4/traces/ddp-clean and mem-1gpu, rank 0). */
static const struct piece real[] = {
	P("{\n    \"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#4\", \"pid\": 4183, \"tid\": 4183,\n"
	  "    \"ts\": 5043029013267.532, \"dur\": 35060.865,\n    \"args\": {\n"
	  "      \"External id\": 1,\"Record function id\": 0, \"Ev Idx\": 0\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::item\", \"pid\": 4183, \"tid\": 4183,\n"
	  "    \"ts\": 5043029014092.316, \"dur\": 141.896,\n    \"args\": {\n"
	  "      \"External id\": 2,\"Sequence number\": 468, \"Fwd thread id\": 0, \"Record function id\": 0, "
	  "\"Concrete Inputs\": [\"\"], \"Input type\": [\"float\"], \"Input Strides\": [[]], \"Input Dims\": [[]], "
	  "\"Ev Idx\": 1\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::to\", \"pid\": 4183, \"tid\": 4183,\n"
	  "    \"ts\": 5043029014588.098, \"dur\": 361.703,\n    \"args\": {\n"
	  "      \"External id\": 6,\"Sequence number\": 468, \"Fwd thread id\": 0, \"Record function id\": 0, "
	  "\"Concrete Inputs\": [\"\", \"4\", \"0\", \"\", \"\", \"True\", \"False\", \"\"], \"Input type\": [\"long int\", "
	  "\"Scalar\", \"Scalar\", \"\", \"\", \"Scalar\", \"Scalar\", \"\"], \"Input Strides\": [[1024, 1], [], [], [], [], "
	  "[], [], []], \"Input Dims\": [[8, 1024], [], [], [], [], [], [], []], \"Ev Idx\": 5\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 3030, \"tid\": 3030,\n"
	  "    \"ts\": 5042865481919.404, \"dur\": 75.754,\n    \"args\": {\n"
	  "      \"External id\": 390,\"Sequence number\": 579, \"Fwd thread id\": 0, \"Record function id\": 0, "
	  "\"Concrete Inputs\": [\"\", \"\"], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], \"Input Strides\": "
	  "[[768, 1], [1, 768]], \"Input Dims\": [[8192, 768], [768, 50257]], \"Ev Idx\": 389\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::reshape\", \"pid\": 3030, \"tid\": 3030,\n"
	  "    \"ts\": 5042865475100.189, \"dur\": 6.710,\n    \"args\": {\n"
	  "      \"External id\": 14,\"Record function id\": 0, \"Concrete Inputs\": [\"\", \"[-1]\"], \"Input type\": "
	  "[\"long int\", \"ScalarList\"], \"Input Strides\": [[1024, 1], []], \"Input Dims\": [[8, 1024], []], "
	  "\"Ev Idx\": 13\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::_foreach_add_\", \"pid\": 3030, \"tid\": 3030,\n"
	  "    \"ts\": 5042865496637.133, \"dur\": 104.000,\n    \"args\": {\n"
	  "      \"External id\": 436,\"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\", \"1.\"], \"Input type\": "
	  "[\"TensorList\", \"float\", \"Scalar\"], \"Input Strides\": [[[], [], [], []], [], []], \"Input Dims\": "
	  "[[[768, 768], [768], [], [50257, 768]], [], []], \"Ev Idx\": 435\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"void at::native::vectorized_gather_kernel<16, long>(char*, "
	  "char*, long*, int, long, long, long, long, bool)\", \"pid\": 0, \"tid\": 7,\n"
	  "    \"ts\": 5042865475247.849, \"dur\": 13.792,\n    \"args\": {\n"
	  "      \"External id\": 22,      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 7, \"correlation\": "
	  "10585,      \"registers per thread\": 32,      \"shared memory\": 0,      \"blocks per SM\": 62.060608,      "
	  "\"warps per SM\": 372.363647,      \"grid\": [8192, 1, 1],      \"block\": [192, 1, 1],      "
	  "\"est. achieved occupancy %\": 94\n    }\n  }"),
	P("{\n    \"ph\": \"f\", \"id\": 10585, \"pid\": 0, \"tid\": 7, \"ts\": 5042865475247.849,\n"
	  "    \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 3030, \"tid\": 3030,\n"
	  "    \"ts\": 5042865475212.215, \"dur\": 37.517,\n    \"args\": {\n"
	  "      \"External id\": 22,      \"cbid\": 211, \"correlation\": 10585\n    }\n  }"),
	P("{\n    \"ph\": \"s\", \"id\": 10585, \"pid\": 3030, \"tid\": 3030, \"ts\": 5042865475212.215,\n"
	  "    \"cat\": \"ac2g\", \"name\": \"ac2g\"\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"gpu_memcpy\", \"name\": \"Memcpy DtoH (Device -> Pinned)\", \"pid\": 0, \"tid\": 7,\n"
	  "    \"ts\": 5042865473742.602, \"dur\": 2.432,\n    \"args\": {\n"
	  "      \"External id\": 3,      \"device\": 0, \"context\": 1,      \"stream\": 7, \"correlation\": 10477,      "
	  "\"bytes\": 4, \"memory bandwidth (GB/s)\": 0.001644736842105263\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"gpu_memset\", \"name\": \"Memset (Device)\", \"pid\": 0, \"tid\": 7,\n"
	  "    \"ts\": 5042865476868.745, \"dur\": 0.800,\n    \"args\": {\n"
	  "      \"External id\": 76,      \"device\": 0, \"context\": 1,      \"stream\": 7, \"correlation\": 10794,      "
	  "\"bytes\": 4, \"memory bandwidth (GB/s)\": 0.005\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"record_param_comms\", \"pid\": 3030, \"tid\": 3111,\n"
	  "    \"ts\": 5042865485076.480, \"dur\": 172.485,\n    \"args\": {\n"
	  "      \"External id\": 651,\"Record function id\": 0, \"Collective name\": \"allreduce\", \"Process Group "
	  "Description\": \"default_pg\", \"dtype\": \"Float\", \"Rank\": 0, \"Input Strides\": [[[1]], [], [], [], [], [], "
	  "[], [], [], []], \"Concrete Inputs\": [\"\", \"\", \"\", \"0\", \"\", \"[]\", \"[]\", \"0\", \"1\", \"4\"], \"Out msg "
	  "nelems\": 2361600, \"Process Group Name\": \"0\", \"Input type\": [\"TensorList\", \"\", \"\", \"Scalar\", \"\", "
	  "\"ScalarList\", \"ScalarList\", \"Scalar\", \"Scalar\", \"Scalar\"], \"Global rank stride\": 1, \"Out split "
	  "size\": \"[]\", \"In split size\": \"[]\", \"Process Group Ranks\": \"[0, 1, 2, 3]\", \"Group size\": 4, \"Input "
	  "Dims\": [[[2361600]], [], [], [], [], [], [], [], [], []], \"Global rank start\": 0, \"Ev Idx\": 1364, \"In msg "
	  "nelems\": 2361600\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgs"
	  "Storage<4096ul>)\", \"pid\": 0, \"tid\": 19,\n    \"ts\": 5042865503435.936, \"dur\": 439.584,\n    \"args\": {\n"
	  "      \"External id\": 651,      \"queued\": 0, \"device\": 0, \"context\": 1,      \"stream\": 19, "
	  "\"correlation\": 12585,      \"registers per thread\": 96,      \"shared memory\": 103808,      \"blocks per "
	  "SM\": 0.181818,      \"warps per SM\": 3.090909,      \"grid\": [24, 1, 1],      \"block\": [544, 1, 1],      "
	  "\"est. achieved occupancy %\": 0, \"Collective name\": \"allreduce\", \"In msg nelems\": 2361600, \"Out msg "
	  "nelems\": 2361600, \"Group size\": 4, \"dtype\": \"Float\", \"In split size\": \"[]\", \"Out split size\": "
	  "\"[]\", \"Process Group Name\": \"0\", \"Process Group Description\": \"default_pg\", \"Process Group "
	  "Ranks\": \"[0, 1, 2, 3]\"\n    }\n  }"),
	P("{\n    \"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\",\n"
	  "    \"pid\": 4183, \"tid\": 4183,\n    \"ts\": 5043029014819.252,\n    \"args\": {\n"
	  "      \"Total Reserved\": 9101639680, \"Total Allocated\": 1587137024, \"Bytes\": 65536, \"Device Id\": 0, "
	  "\"Device Type\": 1, \"Addr\": 139884991959040, \"finished\": false, \"Ev Idx\": 1224\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"gpu_user_annotation\", \"name\": \"backward\", \"pid\": 0, \"tid\": 7,\n"
	  "    \"ts\": 5042865526929.622, \"dur\": 0.770,\n    \"args\": {\n      \"External id\": 2061\n    }\n  }"),
	P("{\n    \"name\": \"process_name\", \"ph\": \"M\", \"ts\": 5042865472153.210, \"pid\": 3030, \"tid\": 0,\n"
	  "    \"args\": {\n      \"name\": \"python3\"\n    }\n  }"),
	P("{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::nll_loss_backward\", \"pid\": 3030, \"tid\": 3111,\n"
	  "    \"ts\": 5042865483691.809, \"dur\": 113.894,\n    \"args\": {\n"
	  "      \"External id\": 515,\"Record function id\": 0, \"Concrete Inputs\": [\"\", \"\", \"\", \"\", \"1\", \"-100\", "
	  "\"\"], \"Input type\": [\"float\", \"float\", \"long int\", \"\", \"Scalar\", \"Scalar\", \"float\"], \"Input "
	  "Strides\": [[], [50257, 1], [1], [], [], [], []], \"Input Dims\": [[], [8192, 50257], [8192], [], [], [], []], "
	  "\"Ev Idx\": 1228\n    }\n  }"),
};

/* Events written to be odd: escapes, NUL, unusual numbers and structure, fields out of order, ... */
static const struct piece odd[] = {
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::\\\"q\\\"\\n\",\"tid\":1,\"ts\":1.000,\"dur\":2.000,"
	  "\"args\":{\"External id\":3}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"\\u00f1ame \xe6\x97\xa5\xe6\x9c\xac\",\"tid\":2,\"ts\":1e3,\"dur\":-0,"
	  "\"args\":{\"device\":0,\"stream\":7,\"correlation\":5}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":12345678901234567,\"ts\":123456789012345678901234,"
	  "\"dur\":1E-2,\"args\":{\"device\":-1,\"stream\":00,\"correlation\":9223372036854775807,\"bytes\":-0}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"big\",\"tid\":99999999999999999,\"args\":{\"device\":"
	  "18446744073709551615,\"stream\":18446744073709551616,\"correlation\":99999999999999999999,\"bytes\":"
	  "1234567890123456789,\"Seq\":-12345678901234567,\"Dst Rank\":-9223372036854775809}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::big\",\"tid\":1234567890123456,\"args\":{"
	  "\"External id\":12345678901234567890,\"Input Dims\":[[18446744073709551616]]}}"),
	P("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"args\":{\"Addr\":"
	  "18446744073709551615,\"Total Allocated\":-9223372036854775808,\"Bytes\":-9223372036854775809,"
	  "\"Total Reserved\":9223372036854775807,\"Device Id\":-0,\"Device Type\":-00}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"comma\",\"args\":{\"grid\":[1,2,],\"device\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"comma\",\"args\":{\"x\":{\"a\":1,},\"device\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"comma\",\"args\":{\"Input Dims\":[[1,2,],[3]],"
	  "\"Input type\":[\"a\",],\"External id\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"comma\",\"grid\":[1,[2,],3],\"args\":{\"device\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":-5,\"ts\":-1.5,\"dur\":+1,"
	  "\"args\":{\"device\":9223372036854775808,\"stream\":1.5,\"correlation\":\"7\"}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":\"PyTorch Profiler (0)\",\"ts\":\"1\",\"dur\":true,"
	  "\"args\":{\"device\":true,\"stream\":null,\"correlation\":[],\"Dst Rank\":{},\"Src Rank\":2}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"name\":\"b\",\"ph\":\"X\",\"cat\":\"kernel\",\"tid\":1,\"tid\":2,"
	  "\"args\":{\"External id\":1,\"External id\":2,\"device\":3,\"device\":\"x\"}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"args\":{\"External id\":1},\"args\":{\"External id\":2}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::cat\",\"ts\":5.5,\"dur\":1,\"tid\":3,\"args\":{"
	  "\"External id\":4,\"Input Dims\":[[[1,2],[3,[4]]],[5]],\"Input type\":[\"a\",[\"b\"]],"
	  "\"Concrete Inputs\":[\"\",{\"x\":1}],\"Input Strides\":[[[[[[]]]]]]}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::y\",\"args\":{\"Input Dims\":[[-1,2],[3]],"
	  "\"Input type\":[\"a,b\",\"[1,2]\",\"x]\",\"[y\",\"\\u0041\",\"t\\ty\",\"\"],\"Concrete Inputs\":[\"\",\"\"],"
	  "\"External id\":0}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::z\",\"args\":{\"Input Dims\":[[[-1,2]],[[99999999999999,"
	  "99999999999999]],[[]],[]],\"Input type\":[],\"Concrete Inputs\":\"none\",\"External id\":01}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::long\",\"args\":{\"External id\":8,\"Input Dims\":[[1024,1024,"
	  "1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],"
	  "[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],"
	  "[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024],[1024,1024,1024]],\"Input type\":["
	  "\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
	  "\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
	  "\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\","
	  "\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\",\"c10::BFloat16\"],\"Concrete Inputs\":[\"[1, 2]\","
	  "\"3\"]}}"),
	P("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
	  "\"ts\":7.000,\"args\":{\"Total Reserved\":0,\"Total Allocated\":-512,\"Bytes\":-65536,\"Device Id\":-1,"
	  "\"Device Type\":0,\"Addr\":94000000000000000}}"),
	P("{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"ts\":7.000,"
	  "\"args\":{\"Total Reserved\":1.0,\"Bytes\":\"64\",\"Addr\":1e6,\"Device Id\":null}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"record_param_comms\",\"tid\":4,\"args\":{\"External id\":9,"
	  "\"Collective name\":\"send\",\"dtype\":\"BFloat16\",\"Dst Rank\":3,\"Src Rank\":-1,\"Seq\":17,"
	  "\"Process Group Description\":\"pp\",\"Process Group Name\":\"\\u0031\",\"In msg nelems\":10,"
	  "\"Out msg nelems\":11,\"Group size\":2}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclDevKernel_SendRecv\",\"args\":{\"Process Group Name\":\"3\","
	  "\"Process Group Description\":\"x\",\"Seq\":\"1\",\"Dst Rank\":1.0,\"Collective name\":\"\\\"\","
	  "\"dtype\":7}}"),
	P("{\"args\":{\"External id\":5,\"Input Dims\":[[1]],\"device\":2},\"name\":\"aten::first\",\"ph\":\"X\","
	  "\"cat\":\"cpu_op\",\"tid\":1}"),
	P("{\"name\":\"aten::noargs\",\"args\":{\"External id\":5,\"Input Dims\":[[1]],\"Input type\":[\"f\"],"
	  "\"Concrete Inputs\":[\"1\"],\"device\":2},\"cat\":\"cpu_op\",\"ph\":\"X\"}"),
	P("{\"cat\":\"cpu_op\",\"ph\":\"X\",\"args\":{\"Input Dims\":[[1]],\"Concrete Inputs\":[\"\"],\"Input type\":[\"\"],"
	  "\"External id\":5,\"Bytes\":1,\"device\":2,\"Input Dims\":[[2]]},\"name\":\"late\"}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::four\",\"args\":{\"External id\":5,\"Input Dims\":[[1]],"
	  "\"Input type\":[\"f\"],\"Concrete Inputs\":[\"1\"],\"device\":\"bad\",\"x\":[1,,2],\"External id\":6}}"),
	P("{ \"\\u0070h\" : \"\\u0058\" , \"c\\u0061t\" : \"k\\u0065rnel\" , \"n\\u0061me\":\"e\", \"t\\u0069d\": 8,"
	  " \"args\" : { \"dev\\u0069ce\" : 1, \"External \\u0069d\": 2 } }"),
	P("{\"ph\":\"X\",\"cat\":\"KERNEL\",\"name\":\"upper\",\"tid\":1,\"args\":{\"external id\":7,\"device\":1}}"),
	P("{\"ph\":\"B\",\"cat\":\"cpu_op\",\"name\":\"begin\",\"args\":{\"External id\":1}}"),
	P("{\"ph\":\"\\u0069\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"args\":{\"Bytes\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f\",\"args\":{\"Python id\":1}}"),
	P("{}"),
	P("{ }"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"args\":{}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"args\":[]}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"args\":null,\"tid\":1}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"e\",\"args\":\"{}\",\"tid\":1}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"n\\u0000ul\",\"tid\":1,\"args\":{\"device\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"raw\0nul\",\"tid\":1,\"args\":{\"device\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"tab\there\",\"tid\":1}"),
	P("{\"ph\":\"X\",\"cat\":\"ker\\nel\",\"name\":\"k\",\"tid\":1}"),
	P("{\r\n\t\"ph\"\t:\r\n\"X\"\t,\"cat\"  :  \"kernel\"  ,\n\"name\"\n:\n\"ws\"\r,\"tid\"\t:\t1\t,\"args\"\n:\n{\n\"device\""
	  "\n:\n0\n,\n\"stream\"\t:\t7\t}\r\n}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":1,\"ts\":1.5,\"dur\":2,\"args\":{\"device\":0,\"stream\":7"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":1,\"ts\":1.5,\"dur\":2,\"args\":{\"device\":0,}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":1,\"ts\":1.5,\"dur\":2,\"args\":{\"device\" 0}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":1,\"ts\":1.5,\"dur\":2,\"args\":{\"device\":0}]"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"grid\":[1,2,3]],\"args\":{\"device\":0}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"args\":{\"Input Dims\":[[1,2]\"Input type\":[\"a\"]}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"args\":{\"Input type\":[\"a\" \"b\"],\"External id\":1}}"),
	P("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::x\",\"tid\":1 2,\"args\":{}}"),
	P("{\"ph\":\"X\" \"cat\":\"kernel\"}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"tid\":tru,\"args\":{\"device\":nul}}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"ts\":1.2.3,\"dur\":--1,\"tid\":0x10}"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"args\":{\"device\":1}},"),
	P("{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"args\":{\"a\":{\"b\":{\"c\":{\"d\":[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]"
	  "]]]]]}}},\"device\":1}}"),
	P("[1,2]"),
	P("\"str\""),
	P("42"),
	P("null"),
};

#define NREAL (sizeof(real) / sizeof(real[0]))
#define NODD (sizeof(odd) / sizeof(odd[0]))

/* Values and keys the mutations put in place of others. */
static const char *const values[] = {
	"1e3", "-0", "0", "00", "-1", "1.5", "12345678901234567", "1234567890123456", "9223372036854775808",
	"-9223372036854775808", "\"7\"", "true", "null", "[]", "{}", "[[1,2],[3]]", "[[[1,2],[3]],[]]",
	"[[-1]]", "[\"a\",\"b\"]", "[\"a\",1]", "\"\\u0041\"", "{\"a\":[1,{\"b\":2}]}", "\"X\"", "\"i\"", "\"cpu_op\"",
	"\"kernel\"", "\"record_param_comms\"", "\"\"", "[[]]", "[\"\"]", "-", "1.", "+1", "\"a\\\"b\"",
};
static const char *const keys[] = {
	"\"ph\"", "\"cat\"", "\"name\"", "\"ts\"", "\"dur\"", "\"tid\"", "\"args\"", "\"External id\"",
	"\"Input Dims\"", "\"Input type\"", "\"Concrete Inputs\"", "\"device\"", "\"stream\"", "\"correlation\"",
	"\"bytes\"", "\"Bytes\"", "\"Seq\"", "\"Dst Rank\"", "\"Collective name\"", "\"Process Group Name\"",
	"\"\\u0074s\"", "\"other\"", "\"\"",
};

/* What on_event was handed, as text; stop_at: the event whose on_event returns 1 (0: none). */
struct seen {
	char *s;
	size_t n, cap;
	int count, stop_at;
};

static void put(struct seen *r, const void *p, size_t n)
{
	if (r->n + n > r->cap) {
		r->cap = (r->n + n) * 2 + 256;
		r->s = realloc(r->s, r->cap);
		if (!r->s)
			abort();
	}
	memcpy(r->s + r->n, p, n);
	r->n += n;
}

static void putf(struct seen *r, const char *fmt, ...)
{
	char b[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	put(r, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

static void put_str(struct seen *r, const char *key, struct kj_str s)
{
	if (!s.p) {
		putf(r, " %s=-", key);
		return;
	}
	putf(r, " %s=%zu:", key, s.n);
	put(r, s.p, s.n);
}

static void put_int(struct seen *r, const char *key, int has, int64_t v)
{
	putf(r, " %s=%d:%" PRId64, key, has, v);
}

static int on_event(void *ctx, const struct kj_event *ev)
{
	struct seen *r = ctx;
	putf(r, "@%zu cls=%d", ev->offset, ev->cls);
	put_str(r, "ph", ev->ph);
	put_str(r, "cat", ev->cat);
	put_str(r, "name", ev->name);
	put_str(r, "ts", ev->ts);
	put_str(r, "dur", ev->dur);
	putf(r, " bad=%d,%d tid=%" PRId64, ev->ts_bad, ev->dur_bad, ev->tid);
	put_int(r, "device", ev->has_device, ev->device);
	put_int(r, "stream", ev->has_stream, ev->stream);
	put_int(r, "correlation", ev->has_correlation, ev->correlation);
	put_int(r, "bytes", ev->has_bytes, ev->bytes);
	put_int(r, "external_id", ev->has_external_id, ev->external_id);
	putf(r, " bad_int=%s", ev->bad_int ? ev->bad_int : "-");
	put_str(r, "collective", ev->collective);
	put_str(r, "dtype", ev->dtype);
	putf(r, " nelems=%" PRId64 ",%" PRId64 " group=%" PRId64, ev->in_nelems, ev->out_nelems, ev->group_size);
	put_str(r, "pg", ev->process_group);
	putf(r, " pg_from_name=%d", ev->pg_from_name);
	put_int(r, "seq", ev->has_seq, ev->seq);
	put_int(r, "dst", ev->has_dst, ev->dst);
	put_int(r, "src", ev->has_src, ev->src);
	put_int(r, "total_alloc", ev->has_total_alloc, ev->total_alloc);
	put_int(r, "total_reserved", ev->has_total_reserved, ev->total_reserved);
	put_int(r, "mem_bytes", ev->has_mem_bytes, ev->mem_bytes);
	put_int(r, "addr", ev->has_addr, ev->addr);
	put_int(r, "dev_id", ev->has_dev_id, ev->dev_id);
	put_int(r, "dev_type", ev->has_dev_type, ev->dev_type);
	put_str(r, "dims", ev->dims);
	put_str(r, "types", ev->types);
	put_str(r, "concrete", ev->concrete);
	put(r, "\n", 1);
	return ++r->count == r->stop_at;
}

/* One parse's outcome: its return, what on_event saw, the error. */
struct outcome {
	int r;
	struct seen seen;
	struct kj_error err;
};

/* Every category read, an operator's args as KJ_ONLY_EXTERNAL_ID: the text path's other reading. */
static int cat_all(const char *cat, size_t n)
{
	(void)cat;
	return n ? 1 | KJ_ONLY_EXTERNAL_ID : 0;
}

static void outcome_reset(struct outcome *o, int stop_at)
{
	o->seen.n = 0;
	o->seen.count = 0;
	o->seen.stop_at = stop_at;
	memset(&o->err, 0, sizeof(o->err));
}

static int same(const struct outcome *a, const struct outcome *b)
{
	return a->r == b->r && a->seen.n == b->seen.n && !memcmp(a->seen.s, b->seen.s, a->seen.n) &&
	       a->err.offset == b->err.offset && !strcmp(a->err.message, b->err.message) &&
	       !strcmp(a->err.detail, b->err.detail);
}

/*
 * A window's outcomes: the same, but where simdjson's reading fails the
 * text path may have handed on more events first (parse_window reads a
 * window from the text before simdjson's first stage looks at it): then
 * simdjson's events must be the text path's first ones, and the text path
 * must fail the same way, or have been stopped by on_event before it met
 * the failure (in perfstudy on_event stops only on an error of its own:
 * either way the trace fails, kineto.c).
 */
static int same_window(const struct outcome *text, const struct outcome *sj)
{
	if (sj->r != -1 || (text->r != -1 && text->r != 1))
		return same(text, sj);
	if (sj->seen.n > text->seen.n || memcmp(text->seen.s, sj->seen.s, sj->seen.n))
		return 0;
	return text->r == 1 || (text->err.offset == sj->err.offset && !strcmp(text->err.message, sj->err.message) &&
				 !strcmp(text->err.detail, sj->err.detail));
}

static int shown;

static void show(const char *how, const char *buf, size_t len, const struct outcome *o)
{
	if (shown >= 4)
		return;
	shown++;
	fprintf(stderr, "%s: text and simdjson differ on %zu bytes:\n", how, len);
	fwrite(buf, 1, len, stderr);
	for (int i = 0; i < 2; i++)
		fprintf(stderr, "\n-- %s: r=%d err@%zu \"%s\" \"%s\"\n%.*s", i ? "simdjson" : "text", o[i].r, o[i].err.offset,
			o[i].err.message, o[i].err.detail, (int)o[i].seen.n, o[i].seen.s ? o[i].seen.s : "");
	fputc('\n', stderr);
}

static struct kj_parser *parser[2];
static struct outcome out[2];

/*
 * buf[0..len) (followed by 64 bytes of padding) as a window at base and,
 * wrapped in {"traceEvents": ...}, as a document, each with the text path
 * on and off; the outcomes compared.
 */
static void compare(const char *buf, size_t len, size_t base, kj_cat_fn cat, int stop_at)
{
	for (int i = 0; i < 2; i++) {
		kj_text_read = !i;
		outcome_reset(&out[i], stop_at);
		out[i].r = kj_parse_events(parser[i], buf, len, base, on_event, cat, &out[i].seen, &out[i].err);
	}
	CHECK(same_window(&out[0], &out[1]));
	if (!same_window(&out[0], &out[1]))
		show("window", buf, len, out);

	static const char head[] = "{\"traceEvents\": ";
	size_t dn = sizeof(head) - 1 + len + 1;
	char *doc = malloc(dn + 64);
	if (!doc)
		abort();
	memcpy(doc, head, sizeof(head) - 1);
	memcpy(doc + sizeof(head) - 1, buf, len);
	doc[dn - 1] = '}';
	memcpy(doc + dn, buf + len, 64);
	for (int i = 0; i < 2; i++) {
		struct kj_meta meta;
		kj_text_read = !i;
		outcome_reset(&out[i], stop_at);
		out[i].r = kj_parse(doc, dn, on_event, cat, &out[i].seen, &meta, &out[i].err);
		if (out[i].r >= 0)
			kj_meta_release(&meta);
	}
	CHECK(same(&out[0], &out[1]));
	if (!same(&out[0], &out[1]))
		show("document", doc, dn, out);
	free(doc);
	kj_text_read = 1;
}

/* The test's PRNG (xorshift64*), from a fixed seed. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 0x2545f4914f6cdd1dull) >> 33) % n;
}

/* The window being made: its text, then room for the padding. */
static char win[1 << 16];
static size_t wn;

static void win_put(const char *s, size_t n)
{
	if (wn + n + 64 <= sizeof(win)) {
		memcpy(win + wn, s, n);
		wn += n;
	}
}

/* Replaces win[at..at+n) with s. */
static void win_splice(size_t at, size_t n, const char *s, size_t sn)
{
	if (wn - n + sn + 64 > sizeof(win))
		return;
	memmove(win + at + sn, win + at + n, wn - at - n);
	memcpy(win + at, s, sn);
	wn = wn - n + sn;
}

/* Where the JSON value at i ends (roughly: strings, brackets and scalars; enough to swap one). */
static size_t value_end(size_t i)
{
	if (i >= wn)
		return wn;
	if (win[i] == '"') {
		for (i++; i < wn && win[i] != '"'; i++)
			if (win[i] == '\\')
				i++;
		return i < wn ? i + 1 : wn;
	}
	if (win[i] == '[' || win[i] == '{') {
		int depth = 0, str = 0;
		for (; i < wn; i++) {
			char c = win[i];
			if (str) {
				if (c == '\\')
					i++;
				else if (c == '"')
					str = 0;
			} else if (c == '"') {
				str = 1;
			} else if (c == '[' || c == '{') {
				depth++;
			} else if ((c == ']' || c == '}') && !--depth) {
				return i + 1;
			}
		}
		return wn;
	}
	while (i < wn && !strchr(",}] \n\r\t", win[i]))
		i++;
	return i;
}

/* A ':' at or after a random place; wn when none. */
static size_t some_colon(void)
{
	size_t at = wn ? rnd((uint32_t)wn) : 0;
	while (at < wn && win[at] != ':')
		at++;
	return at;
}

static const char interesting[] = "\"{}[],: \n\t\\0123456789-+.eEaXi";

/* One mutation of the window. */
static void mutate(void)
{
	size_t at = wn ? rnd((uint32_t)wn) : 0;
	char c = rnd(16) ? interesting[rnd(sizeof(interesting) - 1)] : (char)rnd(256);
	switch (rnd(9)) {
	case 0: /* a byte changed */
		if (at < wn)
			win[at] = c;
		break;
	case 1: { /* bytes deleted */
		size_t n = 1 + rnd(4);
		win_splice(at, at + n <= wn ? n : wn - at, "", 0);
		break;
	}
	case 2: /* a byte inserted */
		win_splice(at, 0, &c, 1);
		break;
	case 3: { /* a run of bytes copied elsewhere (a key, a field twice) */
		size_t n = 1 + rnd(40), to = wn ? rnd((uint32_t)wn) : 0;
		char tmp[64];
		if (at + n > wn)
			n = wn - at;
		memcpy(tmp, win + at, n);
		win_splice(to, 0, tmp, n);
		break;
	}
	case 4: /* cut short */
		wn = at;
		if (rnd(2))
			win_put("]", 1);
		break;
	case 5:
	case 6: { /* a value swapped */
		size_t i = some_colon();
		if (i == wn)
			break;
		i++;
		while (i < wn && strchr(" \n\r\t", win[i]))
			i++;
		const char *v = values[rnd(sizeof(values) / sizeof(values[0]))];
		win_splice(i, value_end(i) - i, v, strlen(v));
		break;
	}
	case 7: { /* a key swapped */
		size_t i = some_colon();
		while (i > 0 && i < wn && win[i - 1] != '"')
			i--;
		if (i == 0 || i >= wn)
			break;
		size_t e = i--;
		while (i > 0 && win[i - 1] != '"')
			i--;
		if (i == 0)
			break;
		const char *k = keys[rnd(sizeof(keys) / sizeof(keys[0]))];
		win_splice(i - 1, e - i + 1, k, strlen(k));
		break;
	}
	default: /* whitespace put in */
		win_splice(at, 0, " \n\t\r" + rnd(4), 1);
		break;
	}
}

static const struct piece *pick(void)
{
	unsigned i = rnd(NREAL + NODD);
	return i < NREAL ? &real[i] : &odd[i - NREAL];
}

/* A window of 1 to 6 events, then mutations (none, for a third of them). */
static void make_window(int odd_too, int mutations)
{
	static const char *const seps[] = {",", ",\n  ", " , ", ",\t", "\r\n,\r\n"};
	static const char *const heads[] = {"[", "[\n  ", " [ ", "\n["};
	static const char *const tails[] = {"]", "\n]", "]  ", " ]\n"};
	wn = 0;
	const char *h = heads[rnd(4)];
	win_put(h, strlen(h));
	int k = 1 + (int)rnd(6);
	for (int i = 0; i < k; i++) {
		const struct piece *e = odd_too ? pick() : &real[rnd(NREAL)];
		if (i) {
			const char *s = seps[rnd(5)];
			win_put(s, strlen(s));
		}
		win_put(e->s, e->n);
	}
	const char *t = tails[rnd(4)];
	win_put(t, strlen(t));
	for (int i = 0; i < mutations; i++)
		mutate();
}

/* The window compared, with padding after it as a cut window has: the bytes that follow in the trace. */
static void compare_window(void)
{
	const struct piece *next = pick();
	for (size_t i = 0; i < 64; i++)
		win[wn + i] = i < next->n ? next->s[i] : "\"}], "[i % 5];
	int stop_at = rnd(4) ? 0 : 1 + (int)rnd(4);
	compare(win, wn, rnd(1u << 20), rnd(3) ? kineto_cat_class : cat_all, stop_at);
}

int main(void)
{
	for (int i = 0; i < 2; i++)
		parser[i] = kj_parser_new(0);

	/* each event alone, then the real ones together as written */
	for (size_t i = 0; i < NREAL + NODD; i++) {
		const struct piece *e = i < NREAL ? &real[i] : &odd[i - NREAL];
		wn = 0;
		win_put("[", 1);
		win_put(e->s, e->n);
		win_put("]", 1);
		memset(win + wn, ' ', 64);
		compare(win, wn, 1000, kineto_cat_class, 0);
		compare(win, wn, 0, cat_all, 0);
	}
	wn = 0;
	win_put("[\n  ", 4);
	for (size_t i = 0; i < NREAL; i++) {
		if (i)
			win_put(",\n  ", 4);
		win_put(real[i].s, real[i].n);
	}
	win_put("\n]", 2);
	memset(win + wn, ' ', 64);
	compare(win, wn, 17, kineto_cat_class, 0);
	/* The text path read that whole window itself: its fields are those simdjson reads. */
	CHECK(out[0].r == 0 && out[0].seen.count == (int)NREAL);
	CHECK(strstr(out[0].seen.s, "dims=22:[8192,768],[768,50257]") != NULL);

	/* windows of real events, mutated or not; then of all events */
	for (int round = 0; round < 4000; round++) {
		make_window(0, round % 3 ? 1 + (int)rnd(3) : 0);
		compare_window();
	}
	for (int round = 0; round < 4000; round++) {
		make_window(1, round % 3 ? 1 + (int)rnd(3) : 0);
		compare_window();
	}

	for (int i = 0; i < 2; i++) {
		kj_parser_free(parser[i]);
		free(out[i].seen.s);
	}
	return check_result("test_kineto_text");
}
