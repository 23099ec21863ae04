package org.nccl4j.core.topo.xml;

import org.nccl4j.core.debug.CFormat;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nccl4j.NcclException;
import org.nccl4j.Result;

class XmlReaderWriterTest {
    static String resource(String name) {
        try (InputStream in = XmlReaderWriterTest.class.getResourceAsStream("/topo/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Stream<String> topologies() {
        return Stream.of("1v100_1nic100g.xml", "dgx1v.xml", "dgxa100.xml", "p9_4gpu.xml", "pcie8_intel.xml");
    }

    private static TopoXml read(String text) {
        return XmlReader.readTopology(text.getBytes(StandardCharsets.ISO_8859_1), TopoDialect.NCCL);
    }

    @ParameterizedTest
    @MethodSource("topologies")
    void redumpIsIdentical(String file) {
        String text = resource("topologies/" + file);
        assertEquals(text, XmlWriter.toText(read(text)));
    }

    private static void assertRejected(String text, Result result) {
        NcclException e = assertThrows(NcclException.class, () -> read(text));
        assertEquals(result, e.result());
    }

    @Test
    void rejectsWhatNcclRejects() {
        assertRejected("<system\tversion=\"1\"/>\n", Result.INTERNAL_ERROR);
        assertRejected("\t<system version=\"1\"/>\n", Result.INTERNAL_ERROR);
        assertRejected("<?xml version=\"1.0\"?>\n<system version=\"1\"/>\n", Result.INTERNAL_ERROR);
        assertRejected("<system version=\"1\">\n  <cpu numaid=\"0\">\n  </system>\n</system>\n", Result.INTERNAL_ERROR);
        assertRejected("<system version=\"1\">\n", Result.INTERNAL_ERROR);
        assertRejected("<system version=1/>\n", Result.INTERNAL_ERROR);
        assertRejected("<system version=\"2\"/>\n", Result.INVALID_USAGE);
        assertRejected("<system version=\"1\"/>\n<!-- open", Result.INTERNAL_ERROR);
    }

    @Test
    void acceptsCommentsDropsUnknownElementsAndExtraAttributes() {
        StringBuilder attrs = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            attrs.append(" a").append(i).append("=\"").append(i).append('"');
        }
        TopoXml xml = read("<!-- header -->\n<system version=\"1\">\n  <foo x=\"1\">\n    <bar/>\n  </whatever>\n"
                + "  <cpu numaid=\"0\"" + attrs + "/>\n</system>\n");
        XmlNode system = xml.root();
        assertEquals("system", system.name());
        assertEquals(1, system.subs().size());
        XmlNode cpu = system.subs().getFirst();
        assertEquals(TopoXml.MAX_ATTR_COUNT, cpu.attrCount());
        assertEquals("14", cpu.attr("a14"));
        assertNull(cpu.attr("a15"));
        // Two spaces make an empty attribute; a '-quoted value ends at a double quote.
        XmlNode n = read("<system version=\"1\"  name='x\"/>\n").root();
        assertEquals("", n.key(1));
        assertEquals("x", n.attr("name"));
    }

    @Test
    void rcclDialectNeedsVersion2() {
        TopoXml xml = XmlReader.readTopology("<system version=\"2\"/>\n".getBytes(StandardCharsets.ISO_8859_1), TopoDialect.RCCL);
        assertEquals("2", xml.root().attr("version"));
    }

    @Test
    void theSystemVersionPicksTheDialect() {
        String gpu = "<system version=\"%d\">\n<cpu>\n<pci busid=\"0000:01:00.0\">\n<gpu dev=\"0\">\n"
                + "<nvlink target=\"a\"/>\n<xgmi target=\"b\"/>\n</gpu>\n</pci>\n</cpu>\n</system>\n";
        TopoXml rccl = XmlReader.readTopology(String.format(gpu, 2).getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(TopoDialect.RCCL, TopoDialect.of(rccl));
        assertEquals("b", rccl.findTag("xgmi").attr("target"));
        assertNull(rccl.findTag("nvlink"));
        TopoXml nccl = XmlReader.readTopology(String.format(gpu, 1).getBytes(StandardCharsets.ISO_8859_1));
        assertEquals(TopoDialect.NCCL, TopoDialect.of(nccl));
        assertEquals("a", nccl.findTag("nvlink").attr("target"));
        assertNull(nccl.findTag("xgmi"));
        assertEquals(TopoDialect.NCCL, TopoDialect.of(new TopoXml()));
        NcclException e = assertThrows(NcclException.class,
                () -> XmlReader.readTopology(String.format(gpu, 3).getBytes(StandardCharsets.ISO_8859_1)));
        assertEquals(Result.INVALID_USAGE, e.result());
    }

    @Test
    void cNumbersMatchC() {
        assertEquals("5000", CFormat.g(5000f));
        assertEquals("264", CFormat.g(264f));
        assertEquals("0.24", CFormat.g(0.24f));
        assertEquals("2.4", CFormat.g(2.4f));
        assertEquals("12", CFormat.g(12f));
        assertEquals("24", CFormat.g(24f));
        assertEquals("21", CFormat.g(21f));
        assertEquals("22", CFormat.g(22f));
        assertEquals("12.5", CFormat.g(12.5f));
        assertEquals("0.1", CFormat.g(0.1f));
        assertEquals("1e+06", CFormat.g(1e6));
        assertEquals("123456", CFormat.g(123456.5)); // exact tie: glibc rounds half to even
        assertEquals("1.23457e+06", CFormat.g(1234567));
        assertEquals("123457", CFormat.g(123456.51));
        assertEquals("0.0001", CFormat.g(0.0001));
        assertEquals("1e-05", CFormat.g(0.00001));
        assertEquals("0", CFormat.g(0));
        assertEquals(8, CNum.strtol("010", 0));
        assertEquals(16, CNum.strtol("0x10", 0));
        assertEquals(-5, CNum.strtol(" -5z", 0));
        assertEquals(0, CNum.strtol("x", 0));
        assertEquals(0.24f, CNum.strtof("0.24abc"));
        assertEquals(0x7000, CNum.busIdToInt64("0000:07:00.0"));
        assertEquals("0000:07:00.0", CNum.int64ToBusId(0x7000));
        assertEquals(3f, CNum.roundf(2.5f));
        assertEquals(0, KvDict.PCI_CLASS.toInt("0x030200"));
        assertEquals(60, KvDict.PCI_GEN.toInt("8.0 GT/s PCIe"));
        assertEquals(120, KvDict.PCI_GEN.toInt("16 GT/s"));
    }
}
