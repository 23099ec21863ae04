package org.nccl4j.core.arch;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * nccl-core's packages form layers: no two packages depend on each other, and the topology
 * port (a pure function of the system's description, as NCCL's graph/ is) uses nothing of the
 * runtime that moves data.
 */
class PackageArchitectureTest {
    private static JavaClasses core;

    @BeforeAll
    static void importCore() {
        core = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("org.nccl4j.core");
    }

    @Test
    void packagesAreFreeOfCycles() {
        slices().matching("org.nccl4j.core.(**)").should().beFreeOfCycles().check(core);
    }

    @Test
    void theTopologyLayerDependsOnNothingOfTheRuntime() {
        classes().that().resideInAPackage("org.nccl4j.core.topo..").should().onlyDependOnClassesThat()
                .resideInAnyPackage("org.nccl4j.core.topo..",
                        "org.nccl4j.core.debug", "org.nccl4j.core.param", // logging and parameters
                        "org.nccl4j.core.proto", // the protocols the tuning model rates
                        "org.nccl4j.core.device", // the devices detection describes
                        "org.nccl4j.net.spi", // the network devices (NetProperties) it describes
                        "org.nccl4j", // the API's values and exceptions
                        "java..", "")
                .check(core);
    }
}
