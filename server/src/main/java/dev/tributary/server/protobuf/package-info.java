/**
 * FORMAT PROTOBUF, shared by sources and Kafka sinks: the message type a statement names
 * ({@link dev.tributary.server.protobuf.ProtobufSchema}, a descriptor set kept in the statement),
 * and rows as its messages both ways ({@link dev.tributary.server.protobuf.ProtobufRows}, with
 * proto3's JSON mapping for what a jsonb column holds).
 */
package dev.tributary.server.protobuf;
