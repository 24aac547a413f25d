<?php

namespace App\Billing;

use App\Models\Invoice;
use Psr\Log\LoggerInterface;

/**
 * Formats an amount.
 */
function format_amount(int $cents): string
{
    return number_format($cents / 100, 2);
}

interface Payable
{
    public function pay(): bool;
}

class Biller implements Payable
{
    private LoggerInterface $log;

    public function __construct(LoggerInterface $log)
    {
        $this->log = $log;
    }

    public function pay(): bool
    {
        $this->log->info("paid");
        return true;
    }
}
