// SPDX-License-Identifier: Apache-2.0
package dev.marrow.testing;

import dev.marrow.api.Backend;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.platform.commons.support.AnnotationSupport;

/** Evaluates {@link RequiresBackend}; prints why a test is skipped. */
public final class BackendCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext ctx) {
        var ann = ctx.getElement().flatMap(e -> AnnotationSupport.findAnnotation(e, RequiresBackend.class));
        if (ann.isEmpty()) {
            return ConditionEvaluationResult.enabled("no backend requirement");
        }
        Backend b = ann.get().value();
        Throwable cause = b.unavailabilityCause();
        if (cause == null) {
            return ConditionEvaluationResult.enabled(b.displayName() + " available");
        }
        String reason = "needs backend " + b.displayName() + ": " + cause.getMessage();
        System.err.println("SKIPPED " + ctx.getDisplayName() + " -- " + reason);
        return ConditionEvaluationResult.disabled(reason);
    }
}
