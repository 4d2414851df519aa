#include "generator/db_export/profiler_db_schema.h"

#include <utility>
#include <vector>

namespace cs::generator {

namespace {

using Enum = std::vector<std::pair<int, const char*>>;

void write_enum(SqliteFile& db, const char* table, const Enum& rows) {
  Insert ins = db.insert(table, 2);
  for (const auto& [id, name] : rows) ins.row({id, name});
}

}  // namespace

void create_profiler_tables(SqliteFile& db) {
  db.exec(
      "CREATE TABLE STRING_IDS (id INTEGER PRIMARY KEY,value TEXT);"
      "CREATE TABLE NPU_INFO (id INTEGER,name TEXT);"
      "CREATE TABLE SESSION_TIME_INFO (startTimeNs INTEGER,endTimeNs INTEGER);"
      "CREATE TABLE HOST_INFO (hostUid TEXT,hostName TEXT);"
      "CREATE TABLE META_DATA (name TEXT,value TEXT);"
      "CREATE TABLE RANK_DEVICE_MAP (rankId INTEGER, deviceId INTEGER);"
      "CREATE TABLE STEP_TIME (id INTEGER, startNs INTEGER, endNs INTEGER);"
      "CREATE TABLE TASK (startNs INTEGER,endNs INTEGER,deviceId INTEGER,connectionId "
      "INTEGER,globalTaskId INTEGER,globalPid INTEGER,taskType INTEGER,contextId INTEGER,streamId "
      "INTEGER,taskId INTEGER,modelId INTEGER, depth integer);"
      "CREATE TABLE COMPUTE_TASK_INFO (name INTEGER,globalTaskId INTEGER PRIMARY KEY,blockDim "
      "INTEGER,mixBlockDim INTEGER,taskType INTEGER,opType INTEGER,inputFormats "
      "INTEGER,inputDataTypes INTEGER,inputShapes INTEGER,outputFormats INTEGER,outputDataTypes "
      "INTEGER,outputShapes INTEGER,attrInfo INTEGER, waitNs INTEGER);"
      "CREATE TABLE COMMUNICATION_OP (opName INTEGER,startNs INTEGER,endNs INTEGER,connectionId "
      "INTEGER,groupName INTEGER,opId INTEGER PRIMARY KEY,relay INTEGER,retry INTEGER,dataType "
      "INTEGER,algType INTEGER,count NUMERIC,opType INTEGER, waitNs INTEGER);"
      "CREATE TABLE COMMUNICATION_TASK_INFO (name INTEGER,globalTaskId INTEGER,taskType "
      "INTEGER,planeId INTEGER,groupName INTEGER,notifyId INTEGER,rdmaType INTEGER,srcRank "
      "INTEGER,dstRank INTEGER,transportType INTEGER,size INTEGER,dataType INTEGER,linkType "
      "INTEGER,opId INTEGER);"
      "CREATE TABLE CANN_API (startNs INTEGER,endNs INTEGER,type INTEGER,globalTid "
      "INTEGER,connectionId INTEGER PRIMARY KEY,name INTEGER, depth integer);"
      "CREATE TABLE PYTORCH_API (startNs TEXT, endNs TEXT, globalTid INTEGER, connectionId "
      "INTEGER, name INTEGER, sequenceNumber INTEGER, fwdThreadId INTEGER, inputDtypes INTEGER, "
      "inputShapes INTEGER, callchainId INTEGER, type INTEGER, depth integer);"
      "CREATE TABLE CONNECTION_IDS (id INTEGER, connectionId INTEGER);"
      "CREATE TABLE OVERLAP_ANALYSIS (id INTEGER PRIMARY KEY AUTOINCREMENT, deviceId integer, "
      "startNs integer, endNs integer, type integer);"
      "CREATE TABLE MSTX_EVENTS (startNs INTEGER,endNs INTEGER,eventType INTEGER,rangeId "
      "INTEGER,category INTEGER,message INTEGER,globalTid INTEGER,endGlobalTid INTEGER,domainId "
      "INTEGER,connectionId INTEGER, depth integer);"
      "CREATE TABLE ENUM_API_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
      "CREATE TABLE ENUM_HCCL_DATA_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
      "CREATE TABLE ENUM_HCCL_LINK_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
      "CREATE TABLE ENUM_HCCL_TRANSPORT_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
      "CREATE TABLE ENUM_HCCL_RDMA_TYPE (id INTEGER PRIMARY KEY,name TEXT);"
      "CREATE TABLE ENUM_MSTX_EVENT_TYPE (id INTEGER PRIMARY KEY,name TEXT);");
}

void write_enum_tables(SqliteFile& db) {
  write_enum(db, "ENUM_API_TYPE",
             {{5000, "runtime"},
              {kApiTypeHccl, "hccl"},
              {kApiTypeNode, "node"},
              {15000, "model"},
              {kApiTypeAcl, "acl"},
              {kApiTypeOp, "op"},
              {50002, "queue"},
              {50003, "trace"},
              {kApiTypeMstx, "mstx"}});
  write_enum(db, "ENUM_HCCL_DATA_TYPE",
             {{0, "INT8"},
              {1, "INT16"},
              {2, "INT32"},
              {3, "FP16"},
              {4, "FP32"},
              {5, "INT64"},
              {6, "UINT64"},
              {7, "UINT8"},
              {8, "UINT16"},
              {9, "UINT32"},
              {10, "FP64"},
              {kDataTypeBf16, "BFP16"},
              {12, "INT128"},
              {65534, "N/A"},
              {65535, "INVALID_TYPE"}});
  write_enum(db, "ENUM_HCCL_LINK_TYPE",
             {{kLinkOnChip, "ON_CHIP"},
              {kLinkHccs, "HCCS"},
              {2, "PCIE"},
              {kLinkRoce, "ROCE"},
              {4, "SIO"},
              {5, "HCCS_SW"},
              {6, "STANDARD_ROCE"},
              {7, "RESERVED"},
              {65534, "N/A"},
              {65535, "INVALID_TYPE"}});
  write_enum(db, "ENUM_HCCL_TRANSPORT_TYPE",
             {{kTransportSdma, "SDMA"},
              {kTransportRdma, "RDMA"},
              {kTransportLocal, "LOCAL"},
              {65534, "N/A"},
              {65535, "INVALID_TYPE"}});
  write_enum(db, "ENUM_HCCL_RDMA_TYPE",
             {{0, "RDMA_SEND_NOTIFY"},
              {kRdmaSendPayload, "RDMA_SEND_PAYLOAD"},
              {2, "RDMA_PAYLOAD_PREPARE"},
              {3, "RDMA_PAYLOAD_CHECK"},
              {4, "RDMA_PAYLOAD_ACK"},
              {5, "RDMA_SEND_OP"},
              {65534, "N/A"},
              {kRdmaInvalid, "INVALID_TYPE"}});
  write_enum(
      db, "ENUM_MSTX_EVENT_TYPE",
      {{0, "marker"}, {1, "push/pop"}, {kMstxStartEnd, "start/end"}, {kMstxMarkerEx, "marker_ex"}});
}

}  // namespace cs::generator
