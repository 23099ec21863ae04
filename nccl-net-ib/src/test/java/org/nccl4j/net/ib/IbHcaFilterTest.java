package org.nccl4j.net.ib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import org.junit.jupiter.api.Test;

class IbHcaFilterTest {
    private static List<IbHcaFilter.Entry> entries(String value) {
        return IbHcaFilter.parse(value).entries();
    }

    private static IbHcaFilter.Entry e(String name, int port) {
        return new IbHcaFilter.Entry(name, port);
    }

    @Test
    void unsetAcceptsEverything() {
        IbHcaFilter f = IbHcaFilter.parse(null);
        assertFalse(f.isSet());
        assertTrue(f.accepts("mlx5_0", 1));
        assertTrue(f.accepts("anything", 7));
    }

    @Test
    void emptyListAcceptsEverything() {
        assertTrue(IbHcaFilter.parse("").accepts("mlx5_0", 1));
        assertTrue(IbHcaFilter.parse(",,").accepts("mlx5_0", 1));
        assertTrue(IbHcaFilter.parse("=").accepts("mlx5_0", 1));
    }

    @Test
    void caretAloneExcludesEverything() {
        // An empty list matches everything, and '^' inverts that (NCCL behaves the same).
        assertFalse(IbHcaFilter.parse("^").accepts("mlx5_0", 1));
    }

    @Test
    void parsesNamesAndPorts() {
        assertEquals(List.of(e("mlx5_0", 1), e("mlx5_1", -1), e("mlx4_0", 2)),
                entries("mlx5_0:1,mlx5_1,mlx4_0:2"));
    }

    @Test
    void dropsEmptyNamesAndPortOnlyEntries() {
        assertEquals(List.of(e("mlx5_0", -1), e("mlx5_2", -1)), entries(",,mlx5_0,:3,mlx5_2,"));
    }

    @Test
    void portIsParsedLikeAtoi() {
        assertEquals(List.of(e("mlx5_0", 1), e("mlx5_1", -1)), entries("mlx5_0:1x,mlx5_1"));
        assertEquals(List.of(e("mlx5_0", 0)), entries("mlx5_0:abc"));
        assertEquals(List.of(e("mlx5_0", 0)), entries("mlx5_0:"));
        assertEquals(List.of(e("mlx5_0", -2)), entries("mlx5_0:-2"));
        assertEquals(12, IbHcaFilter.atoi("  +12z"));
    }

    @Test
    void keepsAtMostSixteenEntries() {
        String value = IntStream.range(0, 20).mapToObj(i -> "mlx5_" + i).collect(Collectors.joining(","));
        List<IbHcaFilter.Entry> parsed = entries(value);
        assertEquals(IbHcaFilter.MAX_ENTRIES, parsed.size());
        assertEquals(e("mlx5_15", -1), parsed.get(15));
        assertFalse(IbHcaFilter.parse("=" + value).accepts("mlx5_16", 1));
    }

    @Test
    void cutsNamesAtSixtyThreeCharacters() {
        String longName = "x".repeat(70);
        assertEquals(List.of(e("x".repeat(IbHcaFilter.MAX_NAME), 4)), entries(longName + ":4"));
    }

    @Test
    void entriesArePrefixesUnlessEquals() {
        IbHcaFilter prefix = IbHcaFilter.parse("mlx5_1");
        assertTrue(prefix.accepts("mlx5_1", 1));
        assertTrue(prefix.accepts("mlx5_11", 1), "mlx5_1 is a prefix of mlx5_11 (why '=' exists)");
        assertFalse(prefix.accepts("mlx5_0", 1));
        assertFalse(prefix.accepts("mlx5_", 1), "the entry must be a prefix of the device, not the reverse");

        IbHcaFilter exact = IbHcaFilter.parse("=mlx5_1");
        assertTrue(exact.exact());
        assertTrue(exact.accepts("mlx5_1", 1));
        assertFalse(exact.accepts("mlx5_11", 1));
    }

    @Test
    void portMinusOneMatchesAnyPort() {
        IbHcaFilter f = IbHcaFilter.parse("mlx5_0:1");
        assertTrue(f.accepts("mlx5_0", 1));
        assertFalse(f.accepts("mlx5_0", 2));
        assertTrue(f.accepts("mlx5_0", -1));
        assertTrue(IbHcaFilter.parse("mlx5_0").accepts("mlx5_0", 2));
    }

    @Test
    void caretExcludes() {
        IbHcaFilter f = IbHcaFilter.parse("^mlx5_0");
        assertTrue(f.exclude());
        assertFalse(f.accepts("mlx5_0", 1));
        assertFalse(f.accepts("mlx5_0", 2));
        assertTrue(f.accepts("mlx5_1", 1));
        assertFalse(f.accepts("mlx5_01", 1), "prefix match also applies to exclusions");

        IbHcaFilter port = IbHcaFilter.parse("^mlx5_0:1");
        assertFalse(port.accepts("mlx5_0", 1));
        assertTrue(port.accepts("mlx5_0", 2));
    }

    @Test
    void caretThenEqualsExcludesExactly() {
        IbHcaFilter f = IbHcaFilter.parse("^=mlx5_1");
        assertTrue(f.exclude());
        assertTrue(f.exact());
        assertFalse(f.accepts("mlx5_1", 1));
        assertTrue(f.accepts("mlx5_11", 1));
    }

    @Test
    void equalsThenCaretIsNotAnExclusion() {
        IbHcaFilter f = IbHcaFilter.parse("=^mlx5_0");
        assertFalse(f.exclude());
        assertTrue(f.exact());
        assertEquals(List.of(e("^mlx5_0", -1)), f.entries());
        assertFalse(f.accepts("mlx5_0", 1));
    }

    @Test
    void blanksArePartOfNames() {
        // NCCL does not trim: " mlx5_0" never matches mlx5_0.
        assertFalse(IbHcaFilter.parse(" mlx5_0").accepts("mlx5_0", 1));
        assertTrue(IbHcaFilter.parse("mlx5_0, mlx5_1").accepts("mlx5_0", 1));
        assertFalse(IbHcaFilter.parse("mlx5_0, mlx5_1").accepts("mlx5_1", 1));
    }

    @Test
    void toStringIsTheSetting() {
        assertEquals("^=mlx5_1:1", IbHcaFilter.parse("^=mlx5_1:1").toString());
        assertEquals("(all)", IbHcaFilter.parse(null).toString());
    }
}
