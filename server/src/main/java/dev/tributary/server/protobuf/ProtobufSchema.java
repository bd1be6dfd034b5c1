package dev.tributary.server.protobuf;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tributary.sql.SqlException;
import dev.tributary.sql.ast.Statement.SourceOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The message type of a {@code FORMAT PROTOBUF (MESSAGE 'pkg.Order', SCHEMA ...)}: one message of
 * a compiled {@code FileDescriptorSet} (what {@code protoc --include_imports
 * --descriptor_set_out=FILE} writes), its files built in dependency order.
 *
 * <p>The options are {@code MESSAGE} (the message's full name) and either {@code SCHEMA FILE
 * 'path'} (a file on the server, read once, at CREATE) or {@code SCHEMA '\x0a...'} (the set's
 * bytes as a hex bytea literal). The catalog keeps the second: CREATE replaces the file by its
 * bytes ({@link #embed}) before the statement is formatted, so a recovery replays the schema the
 * source or sink was made with, whatever became of the file.
 *
 * <p>Imports the set does not hold are taken from protobuf-java's own well-known types
 * ({@code google/protobuf/timestamp.proto} and the like), so a set compiled without
 * {@code --include_imports} still works when it imports only those.
 */
public record ProtobufSchema(Descriptor message) {
    public static final String MESSAGE = "MESSAGE";
    public static final String SCHEMA = "SCHEMA";
    public static final String SCHEMA_FILE = "SCHEMA FILE";

    private static final String OPTIONS_HINT = "FORMAT PROTOBUF takes MESSAGE 'package.Message' and SCHEMA FILE '/path/to/set.desc' (or SCHEMA '\\x...').";
    private static final String COMPILE_HINT = "Compile the .proto files with protoc --include_imports --descriptor_set_out=FILE and give that FILE.";

    /** Well-known files protobuf-java carries, for imports a set compiled without --include_imports lacks. */
    private static final Map<String, FileDescriptor> WELL_KNOWN = wellKnown();

    /** Reads a file of the server's, whole; the caller decides who may and reports what fails. */
    @FunctionalInterface
    public interface FileReader {
        byte[] read(String path, int pos);
    }

    /**
     * {@code options} with {@code SCHEMA FILE 'path'} replaced by {@code SCHEMA '\x...'}, the
     * file's bytes as {@code read} returns them (checked later, by {@link #of}); as they are
     * without SCHEMA FILE.
     */
    public static List<SourceOption> embed(List<SourceOption> options, FileReader read) {
        List<SourceOption> out = new ArrayList<>(options.size());
        for (SourceOption o : options) {
            out.add(o.name().equals(SCHEMA_FILE) ? new SourceOption(o.pos(), SCHEMA, "\\x" + HexFormat.of().formatHex(read.read(o.value(), o.pos()))) : o);
        }
        return out;
    }

    /**
     * The schema {@code options} give: 42601 for an option missing, repeated or unknown; 22023
     * for a SCHEMA that is not a hex bytea of a descriptor set, a set that does not build, or a
     * MESSAGE it does not hold (the hint names those it does).
     */
    public static ProtobufSchema of(List<SourceOption> options, int pos) {
        String message = null, schema = null;
        int schemaPos = pos;
        for (SourceOption o : options) {
            switch (o.name()) {
                case MESSAGE -> {
                    if (message != null) throw new SqlException("42601", "option \"MESSAGE\" given more than once", o.pos());
                    message = o.value();
                }
                case SCHEMA, SCHEMA_FILE -> {
                    if (schema != null) throw new SqlException("42601", "the schema is given more than once", o.pos(), "Give either SCHEMA FILE or SCHEMA, once.");
                    // SCHEMA FILE is replaced by its bytes where the statement is made (embed): here only a SCHEMA is left
                    if (o.name().equals(SCHEMA_FILE)) throw new IllegalStateException("SCHEMA FILE not embedded before the schema was read");
                    schema = o.value();
                    schemaPos = o.pos();
                }
                default -> throw new SqlException("42601", "option \"" + o.name() + "\" not recognized for FORMAT PROTOBUF", o.pos(), OPTIONS_HINT);
            }
        }
        if (message == null) throw new SqlException("42601", "FORMAT PROTOBUF needs the MESSAGE it reads or writes", pos, OPTIONS_HINT);
        if (schema == null) throw new SqlException("42601", "FORMAT PROTOBUF needs its SCHEMA FILE", pos, OPTIONS_HINT);
        if (!schema.startsWith("\\x")) throw new SqlException("22023", "SCHEMA must be a bytea in hex ('\\x0a...'), the bytes of a descriptor set", schemaPos, OPTIONS_HINT);
        byte[] bytes;
        try {
            bytes = HexFormat.of().parseHex(schema, 2, schema.length());
        } catch (IllegalArgumentException e) {
            throw new SqlException("22023", "SCHEMA must be a bytea in hex ('\\x0a...'), the bytes of a descriptor set: " + e.getMessage(), schemaPos, OPTIONS_HINT);
        }
        return new ProtobufSchema(message(bytes, message, schemaPos));
    }

    /** Message {@code name} of the descriptor set {@code set}: 22023 (see {@link #of}). */
    static Descriptor message(byte[] set, String name, int pos) {
        FileDescriptorSet files;
        try {
            files = FileDescriptorSet.parseFrom(set);
        } catch (InvalidProtocolBufferException e) {
            throw notASet(e.getMessage(), pos);
        }
        // bytes that happen to parse (a text file rarely does) hold no files, or fields no set has
        if (files.getFileCount() == 0 || !files.getUnknownFields().asMap().isEmpty()) throw notASet("it holds no file descriptors", pos);
        Map<String, FileDescriptorProto> protos = new HashMap<>();
        for (FileDescriptorProto f : files.getFileList()) protos.put(f.getName(), f);
        Map<String, FileDescriptor> built = new HashMap<>();
        Map<String, Descriptor> messages = new TreeMap<>();
        for (FileDescriptorProto f : files.getFileList()) {
            FileDescriptor fd = build(f.getName(), protos, built, new HashSet<>(), pos);
            for (Descriptor d : fd.getMessageTypes()) collect(d, messages);
        }
        String wanted = name.startsWith(".") ? name.substring(1) : name;
        Descriptor d = messages.get(wanted);
        if (d == null) {
            List<String> held = new ArrayList<>(messages.keySet());
            String list = held.size() > 30 ? String.join(", ", held.subList(0, 30)) + " and " + (held.size() - 30) + " more" : String.join(", ", held);
            throw new SqlException("22023", "message \"" + name + "\" is not in the schema", pos,
                    held.isEmpty() ? "The descriptor set holds no messages." : "Give its full name (package.Message); the set holds " + list + ".");
        }
        return d;
    }

    private static SqlException notASet(String why, int pos) {
        return new SqlException("22023", "the schema is not a compiled protobuf descriptor set (FileDescriptorSet): " + why, pos, COMPILE_HINT);
    }

    /** File {@code name} built after the files it imports; 22023 for an import missing or in a cycle, or a file that does not validate. */
    private static FileDescriptor build(String name, Map<String, FileDescriptorProto> protos, Map<String, FileDescriptor> built, Set<String> building, int pos) {
        FileDescriptor done = built.get(name);
        if (done != null) return done;
        FileDescriptorProto proto = protos.get(name);
        if (proto == null) {
            FileDescriptor known = WELL_KNOWN.get(name);
            if (known != null) return known;
            throw new SqlException("22023", "the descriptor set lacks \"" + name + "\", which one of its files imports", pos, COMPILE_HINT);
        }
        if (!building.add(name)) throw new SqlException("22023", "the descriptor set's imports go round in a cycle through \"" + name + "\"", pos, COMPILE_HINT);
        FileDescriptor[] deps = new FileDescriptor[proto.getDependencyCount()];
        for (int i = 0; i < deps.length; i++) deps[i] = build(proto.getDependency(i), protos, built, building, pos);
        try {
            FileDescriptor fd = FileDescriptor.buildFrom(proto, deps);
            built.put(name, fd);
            return fd;
        } catch (Descriptors.DescriptorValidationException | RuntimeException e) {
            // protobuf-java checks most of a file, and throws unchecked for some of what it does not expect
            throw new SqlException("22023", "file \"" + name + "\" of the descriptor set does not build: " + e.getMessage(), pos, COMPILE_HINT);
        }
    }

    private static void collect(Descriptor d, Map<String, Descriptor> into) {
        // map fields' entry types are messages protoc makes, not the user's
        if (d.getOptions().getMapEntry()) return;
        into.put(d.getFullName(), d);
        for (Descriptor nested : d.getNestedTypes()) collect(nested, into);
    }

    private static Map<String, FileDescriptor> wellKnown() {
        Map<String, FileDescriptor> out = new HashMap<>();
        for (FileDescriptor f : List.of(com.google.protobuf.TimestampProto.getDescriptor(), com.google.protobuf.DurationProto.getDescriptor(),
                com.google.protobuf.WrappersProto.getDescriptor(), com.google.protobuf.StructProto.getDescriptor(), com.google.protobuf.EmptyProto.getDescriptor(),
                com.google.protobuf.AnyProto.getDescriptor(), com.google.protobuf.FieldMaskProto.getDescriptor())) {
            out.put(f.getName(), f);
        }
        return Map.copyOf(out);
    }
}
