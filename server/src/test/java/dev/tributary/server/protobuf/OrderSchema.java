package dev.tributary.server.protobuf;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.DescriptorProtos.MessageOptions;
import com.google.protobuf.DescriptorProtos.OneofDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.TimestampProto;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The test schema, built without protoc: {@code shop/item.proto} (message {@code shop.Item}) and
 * {@code shop/order.proto} importing it and {@code google/protobuf/timestamp.proto}, with a
 * {@code shop.Order} of a field of every scalar type, an enum, a nested message, a repeated
 * field, a map, a Timestamp and a proto3 {@code optional}:
 *
 * <pre>
 * enum Status { NEW = 0; PAID = 1; SHIPPED = 2; }
 * message OrderChange { Order before = 1; Order after = 2; string op = 3; }
 * message Order {
 *   int32 i32 = 1; sint32 s32 = 2; sfixed32 sf32 = 3; int64 i64 = 4; sint64 s64 = 5; sfixed64 sf64 = 6;
 *   uint32 u32 = 7; fixed32 f32 = 8; uint64 u64 = 9; fixed64 f64 = 10; float fl = 11; double db = 12;
 *   bool ok = 13; string name = 14; bytes data = 15; Status status = 16; shop.Item item = 17;
 *   repeated int64 tags = 18; map&lt;string, int32&gt; counts = 19; google.protobuf.Timestamp at = 20;
 *   optional string note = 21;
 * }
 * </pre>
 */
public final class OrderSchema {
    private OrderSchema() {}

    public static final String ORDER = "shop.Order";

    static FileDescriptorProto item() {
        return FileDescriptorProto.newBuilder().setName("shop/item.proto").setPackage("shop").setSyntax("proto3")
                .addMessageType(DescriptorProto.newBuilder().setName("Item")
                        .addField(field("sku", 1, Type.TYPE_STRING))
                        .addField(field("qty", 2, Type.TYPE_INT32)))
                .build();
    }

    static FileDescriptorProto order() {
        DescriptorProto.Builder order = DescriptorProto.newBuilder().setName("Order");
        Type[] scalars = {Type.TYPE_INT32, Type.TYPE_SINT32, Type.TYPE_SFIXED32, Type.TYPE_INT64, Type.TYPE_SINT64, Type.TYPE_SFIXED64,
            Type.TYPE_UINT32, Type.TYPE_FIXED32, Type.TYPE_UINT64, Type.TYPE_FIXED64, Type.TYPE_FLOAT, Type.TYPE_DOUBLE, Type.TYPE_BOOL,
            Type.TYPE_STRING, Type.TYPE_BYTES};
        String[] names = {"i32", "s32", "sf32", "i64", "s64", "sf64", "u32", "f32", "u64", "f64", "fl", "db", "ok", "name", "data"};
        for (int i = 0; i < scalars.length; i++) order.addField(field(names[i], i + 1, scalars[i]));
        order.addField(field("status", 16, Type.TYPE_ENUM).setTypeName(".shop.Status"));
        order.addField(field("item", 17, Type.TYPE_MESSAGE).setTypeName(".shop.Item"));
        order.addField(field("tags", 18, Type.TYPE_INT64).setLabel(Label.LABEL_REPEATED));
        order.addNestedType(DescriptorProto.newBuilder().setName("CountsEntry").setOptions(MessageOptions.newBuilder().setMapEntry(true))
                .addField(field("key", 1, Type.TYPE_STRING)).addField(field("value", 2, Type.TYPE_INT32)));
        order.addField(field("counts", 19, Type.TYPE_MESSAGE).setLabel(Label.LABEL_REPEATED).setTypeName(".shop.Order.CountsEntry"));
        order.addField(field("at", 20, Type.TYPE_MESSAGE).setTypeName(".google.protobuf.Timestamp"));
        // proto3 optional: a synthetic oneof of its own
        order.addOneofDecl(OneofDescriptorProto.newBuilder().setName("_note"));
        order.addField(field("note", 21, Type.TYPE_STRING).setProto3Optional(true).setOneofIndex(0));
        return FileDescriptorProto.newBuilder().setName("shop/order.proto").setPackage("shop").setSyntax("proto3")
                .addDependency("shop/item.proto").addDependency("google/protobuf/timestamp.proto")
                .addEnumType(EnumDescriptorProto.newBuilder().setName("Status")
                        .addValue(EnumValueDescriptorProto.newBuilder().setName("NEW").setNumber(0))
                        .addValue(EnumValueDescriptorProto.newBuilder().setName("PAID").setNumber(1))
                        .addValue(EnumValueDescriptorProto.newBuilder().setName("SHIPPED").setNumber(2)))
                .addMessageType(order)
                // Debezium's envelope around an order, for ENVELOPE DEBEZIUM
                .addMessageType(DescriptorProto.newBuilder().setName("OrderChange")
                        .addField(field("before", 1, Type.TYPE_MESSAGE).setTypeName(".shop.Order"))
                        .addField(field("after", 2, Type.TYPE_MESSAGE).setTypeName(".shop.Order"))
                        .addField(field("op", 3, Type.TYPE_STRING)))
                .build();
    }

    private static FieldDescriptorProto.Builder field(String name, int number, Type type) {
        return FieldDescriptorProto.newBuilder().setName(name).setNumber(number).setType(type).setLabel(Label.LABEL_OPTIONAL).setJsonName(jsonName(name));
    }

    private static String jsonName(String name) {
        StringBuilder b = new StringBuilder();
        boolean up = false;
        for (char c : name.toCharArray()) {
            if (c == '_') up = true;
            else b.append(up ? Character.toUpperCase(c) : c);
            if (c != '_') up = false;
        }
        return b.toString();
    }

    /**
     * The set as {@code protoc --include_imports} writes it, files in an order that is not the
     * imports' (order.proto before what it imports), which building must sort out.
     */
    public static FileDescriptorSet set() {
        return FileDescriptorSet.newBuilder().addFile(order()).addFile(TimestampProto.getDescriptor().toProto()).addFile(item()).build();
    }

    /** The set without the well-known import timestamp.proto, as protoc writes it without {@code --include_imports} (here with item.proto). */
    public static FileDescriptorSet setWithoutWellKnown() {
        return FileDescriptorSet.newBuilder().addFile(item()).addFile(order()).build();
    }

    /** {@link #set} written to {@code file}. */
    public static Path write(Path file) {
        try {
            Files.write(file, set().toByteArray());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static final Descriptor ORDER_DESCRIPTOR = buildOrder();

    /** shop.Order's descriptor, built here as a producer of the topic would have it (one instance: messages compare equal only over the same). */
    public static Descriptor orderDescriptor() {
        return ORDER_DESCRIPTOR;
    }

    private static Descriptor buildOrder() {
        try {
            FileDescriptor item = FileDescriptor.buildFrom(item(), new FileDescriptor[0]);
            FileDescriptor order = FileDescriptor.buildFrom(order(), new FileDescriptor[] {item, TimestampProto.getDescriptor()});
            return order.findMessageTypeByName("Order");
        } catch (com.google.protobuf.Descriptors.DescriptorValidationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A full order: every field set, the unsigned ones past their signed range. */
    public static DynamicMessage fullOrder() {
        DynamicMessage.Builder b = DynamicMessage.newBuilder(ORDER_DESCRIPTOR);
        Object[][] scalars = {{"i32", -7}, {"s32", -8}, {"sf32", 9}, {"i64", Long.MIN_VALUE}, {"s64", -11L}, {"sf64", 12L},
            {"u32", -1}, {"f32", -2}, {"u64", -1L}, {"f64", Long.MIN_VALUE}, {"fl", 1.5f}, {"db", -2.25}, {"ok", true}, {"name", "é\"x"},
            {"data", com.google.protobuf.ByteString.copyFrom(new byte[] {0, (byte) 0xff})}, {"note", "n"}};
        for (Object[] s : scalars) b.setField(ORDER_DESCRIPTOR.findFieldByName((String) s[0]), s[1]);
        b.setField(ORDER_DESCRIPTOR.findFieldByName("status"), ORDER_DESCRIPTOR.getFile().findEnumTypeByName("Status").findValueByName("SHIPPED"));
        Descriptor item = ORDER_DESCRIPTOR.findFieldByName("item").getMessageType();
        b.setField(ORDER_DESCRIPTOR.findFieldByName("item"), DynamicMessage.newBuilder(item).setField(item.findFieldByName("sku"), "a-1").setField(item.findFieldByName("qty"), 3).build());
        b.addRepeatedField(ORDER_DESCRIPTOR.findFieldByName("tags"), 1L).addRepeatedField(ORDER_DESCRIPTOR.findFieldByName("tags"), -2L);
        Descriptor entry = ORDER_DESCRIPTOR.findFieldByName("counts").getMessageType();
        b.addRepeatedField(ORDER_DESCRIPTOR.findFieldByName("counts"), DynamicMessage.newBuilder(entry).setField(entry.findFieldByNumber(1), "x").setField(entry.findFieldByNumber(2), 4).build());
        b.setField(ORDER_DESCRIPTOR.findFieldByName("at"), com.google.protobuf.Timestamp.newBuilder().setSeconds(1_700_000_000L).setNanos(123_456_789).build());
        return b.build();
    }

    /** The set's bytes as the SCHEMA option's value. */
    public static String schemaHex() {
        return "\\x" + java.util.HexFormat.of().formatHex(set().toByteArray());
    }
}
